"""The compose deployment, for real on this machine: app processes and nginx as child processes on loopback.

The tests and bench/load.py use this to put the proxy the compose file runs (deploy/nginx/default.conf.template,
rendered the way the official nginx image renders it) in front of app processes started as the Dockerfile
starts them. nginx gets its own prefix, pid file and temp folders in a temporary directory; no system service
is touched.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

DEPLOY = Path(__file__).resolve().parent
ROOT = DEPLOY.parent
# What the Dockerfile sets (a shared cookie secret stands in for the deployment's own).
CONTAINER_ENV = {"STREAMLIT_SERVER_FILE_WATCHER_TYPE": "none", "STREAMLIT_SERVER_HEADLESS": "true",
                 "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
                 "STREAMLIT_SERVER_COOKIE_SECRET": "loopback-test-secret-shared-by-all-replicas",
                 "POSENC_TRUSTED_PROXY": "127.0.0.1"}  # behind nginx_proxy on loopback, which adds X-Forwarded-For
TEMPLATE = DEPLOY / "nginx" / "default.conf.template"
VARIABLE = re.compile(r"\$\{([A-Z_][A-Z0-9_]*)\}")


def render(template: str, values: dict[str, str], only: str = "^POSENC_") -> str:
    """Substitute ${NAME} as the official nginx image does (envsubst, only names matching `only`)."""
    def substitute(match: re.Match) -> str:
        name = match.group(1)
        if not re.search(only, name):
            return match.group(0)
        if name not in values:
            raise KeyError(f"the template needs {name}")
        return values[name]
    return VARIABLE.sub(substitute, template)


def full_config(site: str, prefix: Path) -> str:
    """The site (what the image puts in conf.d/) wrapped in a minimal nginx.conf of our own."""
    temp = "\n".join(f"    {kind}_temp_path {prefix / kind};" for kind in
                     ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    return (f"pid {prefix / 'nginx.pid'};\nerror_log {prefix / 'error.log'} warn;\nworker_processes 1;\n"
            f"events {{ worker_connections 4096; }}\nhttp {{\n{temp}\n{site}\n}}\n")


def nginx_path() -> str | None:
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if Path(p).exists()), None)


@contextlib.contextmanager
def nginx_proxy(upstreams: list[str], port: int, timeout: float = 20.0):
    """Yield (base URL, access log path) of nginx on 127.0.0.1:port in front of `upstreams` ("host:port")."""
    nginx = nginx_path()
    if nginx is None:
        raise RuntimeError("nginx is not installed (apt-get install nginx)")
    with tempfile.TemporaryDirectory(prefix="posenc-nginx-") as tmp:
        prefix = Path(tmp)
        log = prefix / "access.log"
        site = render(TEMPLATE.read_text(), {
            "POSENC_LISTEN": f"127.0.0.1:{port}",
            "POSENC_SERVERS": " ".join(f"server {u};" for u in upstreams),
            "POSENC_ACCESS_LOG": str(log)})
        conf = prefix / "nginx.conf"
        conf.write_text(full_config(site, prefix))
        proc = subprocess.Popen([nginx, "-p", str(prefix), "-c", str(conf), "-e", str(prefix / "error.log"),
                                 "-g", "daemon off;"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.time() + timeout
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"nginx exited: {proc.stdout.read().decode(errors='replace')}")
                try:
                    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                        if response.status == 200:
                            break
                except OSError:
                    if time.time() > deadline:
                        raise RuntimeError("nginx did not answer /_stcore/health in time") from None
                    time.sleep(0.2)
            yield url, log
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_healthy(url: str, timeout: float = 90.0, proc: subprocess.Popen | None = None) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the process behind {url} exited with {proc.returncode}")
        with contextlib.suppress(OSError):
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return
        time.sleep(0.3)
    raise RuntimeError(f"{url} did not become healthy in {timeout:.0f} s")


@contextlib.contextmanager
def app_processes(count: int, options: list[str] = (), log_dir: Path | None = None):
    """Yield [(base URL, pid)] of `count` app processes on free loopback ports; stop them afterwards.

    With log_dir, each process's output goes to log_dir/replica_<i>.log (tracebacks of failed runs included).
    """
    env = {**os.environ, **CONTAINER_ENV}
    procs, replicas = [], []
    try:
        for i in range(count):
            port = free_port()
            log = open(Path(log_dir) / f"replica_{i}.log", "wb") if log_dir else subprocess.DEVNULL  # noqa: SIM115
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
                 "--server.address", "127.0.0.1", *options],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT))
            if log_dir:
                log.close()  # the child has its own copy
            replicas.append((f"http://127.0.0.1:{port}", procs[-1].pid))
        for (url, _), proc in zip(replicas, procs, strict=True):
            wait_healthy(url, proc=proc)
        yield replicas
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
