"""The deployment files agree with each other: Dockerfile, compose, Kubernetes, the nginx template, the app config.

Docker and a cluster are not available here, so these tests parse the files and check that every place that
names a port, the health path, the sticky cookie, the upload limit or the proxy timeouts names the same one,
and that the nginx template, rendered with the compose file's values, is a configuration nginx accepts.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import yaml

from deploy import local_proxy
from live_class import rooms
from posenc_core.absolute import MAX_UPLOAD_BYTES
from posenc_core.lab import shared_runs

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
HEALTH = "/_stcore/health"
COOKIE = "posenc_replica"
TEMPLATE = local_proxy.TEMPLATE.read_text()


def _yaml(name: str) -> dict:
    return yaml.safe_load((DEPLOY / name).read_text())


COMPOSE = _yaml("compose.yaml")
K8S = {kind: _yaml(f"k8s/{kind}.yaml") for kind in ("deployment", "service", "ingress", "hpa", "redis-deployment",
                                                    "redis-service", "redis-pvc")}
DOCKERFILE = (ROOT / "Dockerfile").read_text()
CONFIG = (ROOT / ".streamlit" / "config.toml").read_text()
APP_PORT = int(re.search(r"^EXPOSE (\d+)$", DOCKERFILE, re.M).group(1))
CONTAINER = K8S["deployment"]["spec"]["template"]["spec"]["containers"][0]
ANNOTATIONS = K8S["ingress"]["metadata"]["annotations"]


def _megabytes(size: str) -> int:
    return int(re.fullmatch(r"(\d+)[mM]", size).group(1))


def _template_directive(name: str) -> str:
    return re.search(rf"^\s*{name}\s+([^;]+);", TEMPLATE, re.M).group(1)


def test_the_app_listens_on_one_port_everywhere():
    assert f"STREAMLIT_SERVER_PORT={APP_PORT}" in DOCKERFILE
    assert COMPOSE["services"]["app"]["expose"] == [str(APP_PORT)]
    assert COMPOSE["services"]["proxy"]["environment"]["POSENC_SERVERS"] == f"server app:{APP_PORT};"
    assert CONTAINER["ports"] == [{"name": "http", "containerPort": APP_PORT}]
    service_port = K8S["service"]["spec"]["ports"][0]
    assert service_port["targetPort"] == "http"
    backend = K8S["ingress"]["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    assert backend == {"name": K8S["service"]["metadata"]["name"], "port": {"name": service_port["name"]}}


def test_the_proxy_listens_where_compose_publishes_it():
    proxy = COMPOSE["services"]["proxy"]
    listen = proxy["environment"]["POSENC_LISTEN"]
    assert [port.split(":")[1] for port in proxy["ports"]] == [listen]
    assert f"127.0.0.1:{listen}/" in " ".join(proxy["healthcheck"]["test"])


def test_every_health_check_asks_the_same_endpoint():
    checks = {
        "Dockerfile HEALTHCHECK": re.search(r"HEALTHCHECK[^\n]*\n[^\n]*", DOCKERFILE).group(0),
        "compose app": " ".join(COMPOSE["services"]["app"]["healthcheck"]["test"]),
        "compose proxy": " ".join(COMPOSE["services"]["proxy"]["healthcheck"]["test"]),
    }
    for where, text in checks.items():
        assert HEALTH in text, where
    assert f"127.0.0.1:{APP_PORT}{HEALTH}" in checks["Dockerfile HEALTHCHECK"]
    assert f"127.0.0.1:{APP_PORT}{HEALTH}" in checks["compose app"]
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert CONTAINER[probe]["httpGet"] == {"path": HEALTH, "port": "http"}, probe
    assert f"location = {HEALTH}" in TEMPLATE


def test_stickiness_uses_one_cookie_name_and_never_the_client_address():
    assert f"$cookie_{COOKIE}" in TEMPLATE and f'"{COOKIE}=$request_id;' in TEMPLATE
    assert re.search(r"hash \$posenc_sticky_key consistent;", TEMPLATE)
    assert "ip_hash" not in TEMPLATE and "$remote_addr consistent" not in TEMPLATE
    assert ANNOTATIONS["nginx.ingress.kubernetes.io/affinity"] == "cookie"
    assert ANNOTATIONS["nginx.ingress.kubernetes.io/session-cookie-name"] == COOKIE
    assert ANNOTATIONS["nginx.ingress.kubernetes.io/affinity-mode"] == "persistent"
    assert "sessionAffinity" not in K8S["service"]["spec"]  # ClientIP would pin a whole school NAT to one pod


def test_upload_limits_and_timeouts_agree_between_nginx_and_the_ingress():
    body = _megabytes(_template_directive("client_max_body_size"))
    assert body == _megabytes(ANNOTATIONS["nginx.ingress.kubernetes.io/proxy-body-size"])
    streamlit_limit = int(re.search(r"^maxUploadSize\s*=\s*(\d+)", CONFIG, re.M).group(1))
    # the server's cap and the envelope Streamlit allows over it (1 MiB): the proxy agrees with the server
    assert body == streamlit_limit + 1 and streamlit_limit * 2**20 == MAX_UPLOAD_BYTES
    for name in ("proxy_read_timeout", "proxy_send_timeout"):
        seconds = int(_template_directive(name).rstrip("s"))
        assert seconds == int(ANNOTATIONS[f"nginx.ingress.kubernetes.io/{name.replace('_', '-')}"])
    assert _template_directive("proxy_buffering") == "off"
    assert ANNOTATIONS["nginx.ingress.kubernetes.io/proxy-buffering"] == "off"


def test_replicas_share_a_cookie_secret_and_run_without_a_file_watcher():
    assert "STREAMLIT_SERVER_COOKIE_SECRET" in COMPOSE["services"]["app"]["environment"]
    env = {item["name"]: item for item in CONTAINER["env"]}
    assert env["STREAMLIT_SERVER_COOKIE_SECRET"]["valueFrom"]["secretKeyRef"]["key"] == "cookie-secret"
    assert "cookieSecret" not in CONFIG  # a secret never lives in the repository
    assert "STREAMLIT_SERVER_FILE_WATCHER_TYPE=none" in DOCKERFILE
    assert re.search(r"^USER app$", DOCKERFILE, re.M)
    uid = int(re.search(r"useradd [^\n]*--uid (\d+) app", DOCKERFILE).group(1))
    assert K8S["deployment"]["spec"]["template"]["spec"]["securityContext"]["runAsUser"] == uid
    assert re.search(r"^disconnectedSessionTTL\s*=\s*\d+", CONFIG, re.M)


def test_compose_mounts_the_template_the_tests_render():
    proxy = COMPOSE["services"]["proxy"]
    assert re.fullmatch(r"nginx:[\w.-]+", proxy["image"])  # the official image
    source, target, mode = proxy["volumes"][0].split(":")
    assert (DEPLOY / source).resolve() == local_proxy.TEMPLATE and mode == "ro"
    assert target == "/etc/nginx/templates/default.conf.template"
    assert proxy["depends_on"]["app"]["condition"] == "service_healthy"
    needed = set(local_proxy.VARIABLE.findall(TEMPLATE))
    assert needed == {name for name in proxy["environment"] if name.startswith("POSENC_")}
    assert re.search(proxy["environment"]["NGINX_ENVSUBST_FILTER"], "POSENC_LISTEN")
    assert not re.search(proxy["environment"]["NGINX_ENVSUBST_FILTER"], "cookie_posenc_replica")


def test_replicas_share_one_folder_for_lab_runs():
    app = COMPOSE["services"]["app"]
    folder = app["environment"][shared_runs.SHARED_DIR_ENV]
    volume, mounted = app["volumes"][0].split(":")
    assert mounted == folder and volume in COMPOSE["volumes"]
    assert f"mkdir -p {folder} && chown app:app {folder}" in DOCKERFILE  # writable by the non-root user


def test_kubernetes_objects_point_at_each_other():
    labels = K8S["deployment"]["spec"]["template"]["metadata"]["labels"]
    assert K8S["deployment"]["spec"]["selector"]["matchLabels"] == labels
    assert K8S["service"]["spec"]["selector"] == labels
    target = K8S["hpa"]["spec"]["scaleTargetRef"]
    assert (target["kind"], target["name"]) == ("Deployment", K8S["deployment"]["metadata"]["name"])
    assert 2 <= K8S["hpa"]["spec"]["minReplicas"] < K8S["hpa"]["spec"]["maxReplicas"]
    assert CONTAINER["resources"]["requests"]["cpu"] == "1"  # what one process (one GIL) can use
    kustomization = _yaml("k8s/kustomization.yaml")
    assert sorted(kustomization["resources"]) == sorted(f"{kind}.yaml" for kind in K8S)


def test_render_substitutes_only_our_variables_like_the_image_does():
    rendered = local_proxy.render(TEMPLATE, COMPOSE["services"]["proxy"]["environment"])
    assert "${" not in rendered
    assert f"$cookie_{COOKIE}" in rendered and "$request_id" in rendered and "$http_upgrade" in rendered
    assert "server app:8501;" in rendered
    with pytest.raises(KeyError, match="POSENC_SERVERS"):
        local_proxy.render("${POSENC_SERVERS}", {})
    assert local_proxy.render("${HOME}", {}) == "${HOME}"


@pytest.mark.skipif(local_proxy.nginx_path() is None, reason="nginx is not installed (apt-get install nginx)")
def test_nginx_accepts_the_rendered_compose_configuration(tmp_path):
    values = {**COMPOSE["services"]["proxy"]["environment"], "POSENC_LISTEN": "127.0.0.1:8080",
              "POSENC_SERVERS": f"server 127.0.0.1:{APP_PORT};",  # "app" resolves only inside compose
              "POSENC_ACCESS_LOG": str(tmp_path / "access.log")}
    conf = tmp_path / "nginx.conf"
    conf.write_text(local_proxy.full_config(local_proxy.render(TEMPLATE, values), tmp_path))
    checked = subprocess.run([local_proxy.nginx_path(), "-t", "-p", str(tmp_path), "-c", str(conf),
                              "-e", str(tmp_path / "error.log")], capture_output=True, text=True, timeout=30)
    assert checked.returncode == 0, checked.stderr


def test_replicas_share_one_redis_for_live_classes():
    """Compose and Kubernetes hand every replica the same Redis URL, naming a service that exists there."""
    compose_url = COMPOSE["services"]["app"]["environment"][rooms.REDIS_URL_ENV]
    assert re.fullmatch(r"redis://redis:6379/0", compose_url) and "redis" in COMPOSE["services"]
    assert COMPOSE["services"]["redis"]["expose"] == ["6379"]
    assert COMPOSE["services"]["app"]["depends_on"]["redis"]["condition"] == "service_healthy"
    k8s_url = next(e["value"] for e in CONTAINER["env"] if e["name"] == rooms.REDIS_URL_ENV)
    service = K8S["redis-service"]
    assert k8s_url == f"redis://{service['metadata']['name']}:{service['spec']['ports'][0]['port']}/0"
    assert service["spec"]["selector"] == K8S["redis-deployment"]["spec"]["template"]["metadata"]["labels"]
    redis_container = K8S["redis-deployment"]["spec"]["template"]["spec"]["containers"][0]
    assert service["spec"]["ports"][0]["targetPort"] == redis_container["ports"][0]["name"]
    for args in (redis_container["args"], COMPOSE["services"]["redis"]["command"]):
        assert args[args.index("--maxmemory-policy") + 1] == "noeviction"  # never drop an answer to make room
        assert args[args.index("--appendonly") + 1] == "yes"  # kept results outlive a restart of the server
    volume = K8S["redis-deployment"]["spec"]["template"]["spec"]["volumes"][0]  # and of the pod: a volume claim
    assert volume["persistentVolumeClaim"]["claimName"] == K8S["redis-pvc"]["metadata"]["name"]
    assert K8S["redis-deployment"]["spec"]["strategy"]["type"] == "Recreate"
    assert "rooms:/data" in COMPOSE["services"]["redis"]["volumes"]
