# linecnn served with the hosting profile (deploy/hosting.toml); docs/hosting.md has the steps.
#   docker build -t linecnn .
#   docker run -d -p 127.0.0.1:8501:8501 -e STREAMLIT_SERVER_ALLOWED_HOSTS="class.example.org localhost" linecnn
# The default image carries PyTorch's CPU build (about 200 MB). For NVIDIA GPUs build with
#   --build-arg TORCH_INDEX_URL=https://pypi.org/simple
# (the CUDA build, which brings its own CUDA runtime; the host needs only the NVIDIA driver and
# the NVIDIA Container Toolkit) and run with --gpus all.
FROM python:3.11-slim

ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN useradd --create-home --uid 10001 linecnn \
    && mkdir /data && chown linecnn /data

WORKDIR /app

# Dependencies first, so changing a page does not reinstall torch.
COPY pyproject.toml README.md ./
COPY linecnn ./linecnn
RUN pip install torch --index-url "$TORCH_INDEX_URL" && pip install .

COPY app.py ./
COPY pages ./pages
# The one step that selects the hosting profile: it becomes the app's config.
COPY deploy/hosting.toml /app/.streamlit/config.toml

USER linecnn
# Inside the container the app must answer on the container's interface for -p to reach it;
# the host decides who reaches that port (publish it on 127.0.0.1 for a proxy on the host).
ENV STREAMLIT_SERVER_ADDRESS=0.0.0.0 \
    LINECNN_DATA_DIR=/data
VOLUME /data
EXPOSE 8501

HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4)"

CMD ["python", "-m", "streamlit", "run", "app.py"]
