"""Several web nodes behind a real reverse proxy, on this machine: what a benchmark or a test of a
multi-node deployment starts.

    from cluster import start_cluster       # bench/ on the path (or: from bench.cluster import …)
    cluster = start_cluster(env, nodes=2, workers=2, log_dir="/tmp/run")
    ...  # requests to cluster.base go round-robin to the nodes
    cluster.stop()

``start_cluster`` starts ``nodes`` gunicorn servers (``python -m gunicorn config.wsgi``, from the
repository's root, each on a free loopback port, all with ``env``: one database, one Redis, one
MEDIA_ROOT, one SECRET_KEY make them one site) and HAProxy (preferred, when ``haproxy`` is on PATH)
or nginx in front of them on another free loopback port, round-robin, appending the client's address
to X-Forwarded-For: the caller sets ``TRUSTED_PROXY_COUNT=1`` in ``env`` so that the login lockout and
the API's throttle by address read the address the proxy saw. Every file is under ``log_dir``: the
proxy's configuration (``haproxy.cfg`` or ``nginx.conf``) and log, each node's log (``node-N.log``)
and access log (``node-N.access.log``: one line per request the node served). A response names its
node in ``X-Tessera-Node`` (HAProxy: ``node-N``; nginx: the node's address). It returns once
``/healthz`` answers through the proxy, or raises SystemExit naming the log to read.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.error import URLError
from urllib.request import urlopen

ROOT = Path(__file__).resolve().parent.parent
PROXIES = ("haproxy", "nginx")
START_SECONDS = 60.0


@dataclass
class Cluster:
    base: str  # "http://127.0.0.1:PORT" of the proxy
    masters: list[int]  # gunicorn master pids, one per node
    proxy: subprocess.Popen
    nodes: list[subprocess.Popen]

    def stop(self) -> None:
        """The proxy, then every node (TERM, then KILL after 20 s); waits for each."""
        for process in [self.proxy, *self.nodes]:
            if process.poll() is None:
                process.terminate()
        for process in [self.proxy, *self.nodes]:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


def proxy_available() -> str | None:
    """The proxy binary start_cluster would use ("haproxy" before "nginx"), or None."""
    return next((name for name in PROXIES if _binary(name)), None)


def _binary(name: str) -> str | None:
    return shutil.which(name) or next((p for p in (f"/usr/sbin/{name}", f"/sbin/{name}") if os.access(p, os.X_OK)),
                                      None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def haproxy_config(port: int, node_ports: list[int]) -> str:
    servers = "\n".join(f"    server node-{n} 127.0.0.1:{p}" for n, p in enumerate(node_ports))
    return f"""global
    maxconn 4096

defaults
    mode http
    timeout connect 5s
    timeout client 120s
    timeout server 120s
    option forwardfor

frontend web
    bind 127.0.0.1:{port}
    default_backend nodes

backend nodes
    balance roundrobin
    http-response set-header X-Tessera-Node %[srv_name]
{servers}
"""


def nginx_config(port: int, node_ports: list[int], log_dir: Path) -> str:
    servers = "\n".join(f"        server 127.0.0.1:{p};" for p in node_ports)
    temp = "\n".join(f"    {kind}_temp_path {log_dir}/nginx-temp/{kind};"
                     for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    user = "user root;\n" if os.geteuid() == 0 else ""  # the workers write the temp folders under log_dir
    return f"""{user}daemon off;
worker_processes 1;
pid {log_dir}/nginx.pid;
error_log {log_dir}/proxy.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
{temp}
    upstream nodes {{
{servers}
    }}
    server {{
        listen 127.0.0.1:{port};
        client_max_body_size 0;
        location / {{
            proxy_pass http://nodes;
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_request_buffering off;
            add_header X-Tessera-Node $upstream_addr always;
        }}
    }}
}}
"""


def _healthy(base: str) -> bool:
    try:
        with urlopen(f"{base}/healthz", timeout=5) as r:
            return r.status == 200
    except (URLError, ConnectionError, OSError):
        return False


def _wait(base: str, process: subprocess.Popen, what: str, log: Path) -> None:
    end = time.monotonic() + START_SECONDS
    while time.monotonic() < end:
        if process.poll() is not None:
            raise SystemExit(f"{what} exited with {process.returncode} while starting; see {log}")
        if _healthy(base):
            return
        time.sleep(0.1)
    raise SystemExit(f"{what} did not answer /healthz within {START_SECONDS:g} s; see {log}")


def start_cluster(env: dict, *, nodes: int = 2, workers: int = 2, worker_class: str = "sync", threads: int = 1,
                  log_dir: str, proxy: str = "auto") -> Cluster:
    """``nodes`` gunicorn nodes with ``env`` behind HAProxy or nginx (``proxy``: "auto", "haproxy" or
    "nginx"); see the module's docstring."""
    name = proxy_available() if proxy == "auto" else proxy
    if name not in PROXIES:
        raise SystemExit(f"no reverse proxy: install haproxy or nginx (proxy={proxy!r})")
    binary = _binary(name)
    if binary is None:
        raise SystemExit(f"{name} is not installed (apt-get install -y {name})")
    folder = Path(log_dir)
    folder.mkdir(parents=True, exist_ok=True)
    started: list[subprocess.Popen] = []
    cluster = None
    try:
        node_ports = []
        for n in range(nodes):
            port = free_port()
            log = folder / f"node-{n}.log"
            command = [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{port}",
                       "--workers", str(workers), "--worker-class", worker_class, "--threads", str(threads),
                       "--access-logfile", str(folder / f"node-{n}.access.log")]
            with open(log, "ab") as out:
                started.append(subprocess.Popen(command, env=env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT))
            node_ports.append(port)
        for n, (process, port) in enumerate(zip(started, node_ports, strict=True)):
            _wait(f"http://127.0.0.1:{port}", process, f"node {n} (gunicorn)", folder / f"node-{n}.log")
        port = free_port()
        proxy_log = folder / "proxy.log"
        if name == "haproxy":
            config = folder / "haproxy.cfg"
            config.write_text(haproxy_config(port, node_ports))
            command = [binary, "-f", str(config), "-db"]
        else:
            config = folder / "nginx.conf"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
                (folder / "nginx-temp" / kind).mkdir(parents=True, exist_ok=True)
            config.write_text(nginx_config(port, node_ports, folder))
            command = [binary, "-c", str(config), "-p", str(folder), "-e", str(proxy_log)]
        with open(proxy_log, "ab") as out:
            front = subprocess.Popen(command, cwd=folder, stdout=out, stderr=subprocess.STDOUT)
        cluster = Cluster(base=f"http://127.0.0.1:{port}", masters=[p.pid for p in started], proxy=front,
                          nodes=started)
        _wait(cluster.base, front, name, proxy_log)
        return cluster
    except BaseException:
        if cluster is not None:
            cluster.stop()
        else:
            for process in started:
                process.kill()
                process.wait(timeout=10)
        raise
