# The in-pod image: nothing but the fully static kubectl-satoken binary
# (docs/in-pod.md, recipe 2: kubectl debug with an ephemeral container).
#
#   scripts/build-static.sh
#   docker build -t "$IMAGE" .      # BuildKit (default since Docker 23) for COPY --chmod
#
# The binary needs no libc, no /etc/ssl (the pod's ca.crt is the trust anchor)
# and no /etc/nsswitch.conf (names resolve from /etc/hosts and /etc/resolv.conf,
# which the kubelet mounts into every container). x86_64 nodes only.
FROM scratch
ARG BIN=target/x86_64-unknown-linux-gnu/release-static/kubectl-satoken
COPY --chmod=0755 ${BIN} /kubectl-satoken
# Non-root, numeric (a scratch image has no /etc/passwd), so pods with
# runAsNonRoot admit it. The mounted token is world-readable (mode 0644).
USER 65532:65532
ENTRYPOINT ["/kubectl-satoken"]
CMD ["doctor"]
