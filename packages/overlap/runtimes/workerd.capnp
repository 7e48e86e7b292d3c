# workerd's configuration for the runtimes test: worker.js (the quick start bundled as one ES
# module, written next to this file by the test) serves HTTP on a port workerd picks and reports on
# its control fd. Node.js compatibility is off (from 2026's compatibility dates workerd turns it on
# by default), so the worker has no node: module and no `process`, as a Worker without
# `nodejs_compat` on Cloudflare.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .quickstart),
    # The worker's fetch() goes out through the service named "internet"; by default it reaches
    # public addresses only, and the model server listens on 127.0.0.1.
    (name = "internet", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")],
);

const quickstart :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "worker.js")],
  compatibilityDate = "2026-11-01",
  compatibilityFlags = ["no_nodejs_compat"],
);
