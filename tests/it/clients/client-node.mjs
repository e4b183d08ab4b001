// A user's program with the JavaScript client, @kubernetes/client-node: a
// kubeconfig built in code (server, CA file unless the test withholds it,
// token unless anonymous), then CoreV1Api's list or read of pods, and on
// failure the thrown error as a program would print it, unformatted.
// tests/it/clients.rs runs it with its directory's node_modules in reach.
import * as k8s from '@kubernetes/client-node';

const env = process.env;
const kc = new k8s.KubeConfig();
kc.loadFromOptions({
    clusters: [{ name: 'test', server: env.U, caFile: env.CA || undefined }],
    users: [{ name: 'sa', token: env.T || undefined }],
    contexts: [{ name: 'test', cluster: 'test', user: 'sa' }],
    currentContext: 'test',
});
const api = kc.makeApiClient(k8s.CoreV1Api);
// Only a guard against a hang: the server is local.
setTimeout(() => {
    console.error('timed out');
    process.exit(3);
}, 10_000).unref();
try {
    const pods = env.NAME
        ? await api.readNamespacedPod({ name: env.NAME, namespace: env.NS })
        : await api.listNamespacedPod({ namespace: env.NS });
    console.log(JSON.stringify(pods));
} catch (err) {
    console.error(err);
    process.exit(1);
}
