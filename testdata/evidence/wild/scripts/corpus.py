"""Where the wild corpus's cases live. The development cases are listed in
manifest.json beside their texts; the sealed evaluation cases in
sealed/manifest.json beside theirs, so that listing or searching the corpus's
folder shows nothing of a sealed case. Standard library only.
"""
import json
from pathlib import Path

WILD = Path(__file__).resolve().parent.parent
FOLDERS = {"development": WILD, "evaluation": WILD / "sealed"}


def load():
    """Every case of both sets, sorted by id."""
    cases = []
    for folder in FOLDERS.values():
        path = folder / "manifest.json"
        if path.exists():
            cases += json.loads(path.read_text(encoding="utf-8"))
    return sorted(cases, key=lambda e: str(e.get("id")))


def text_path(case):
    """The file of a case's text: in its set's folder, or where it still is
    until `save` moves it there."""
    home = FOLDERS.get(case.get("set"), WILD) / case["file"]
    elsewhere = (f / case["file"] for f in FOLDERS.values())
    return home if home.exists() else next((p for p in elsewhere if p.exists()), home)


def save(cases):
    """Writes each set's manifest, sorted by id, and moves a case's text into
    its set's folder when it is not there yet (a new case, or one whose set
    changed)."""
    for name, folder in FOLDERS.items():
        folder.mkdir(exist_ok=True)
        mine = sorted((e for e in cases if e["set"] == name), key=lambda e: e["id"])
        for e in mine:
            for other in FOLDERS.values():
                if other != folder and (other / e["file"]).exists():
                    (other / e["file"]).rename(folder / e["file"])
        text = json.dumps(mine, indent=2, ensure_ascii=False) + "\n"
        (folder / "manifest.json").write_text(text, encoding="utf-8")
