# linecnn served to a class with the hosting profile; docs/hosting.md ("A class in 15 minutes").
#   docker build -t linecnn .
#   docker run -d --name linecnn -p 127.0.0.1:8501:8501 \
#       -e STREAMLIT_SERVER_ALLOWED_HOSTS=class.example.org -v linecnn-data:/data linecnn
# Every Python package is pinned by constraints.txt, torch by TORCH below. The default image
# carries torch 2.13.0's CPU build (about 200 MB). For NVIDIA GPUs build with
#   --build-arg TORCH_INDEX_URL=https://pypi.org/simple
# which installs the same torch==2.13.0 from PyPI: its CUDA 13.0 build, whose CUDA runtime, cuDNN
# and NCCL constraints.txt pins too (the host needs an NVIDIA driver for CUDA 13.0, R580 or newer,
# and the NVIDIA Container Toolkit), and run with --gpus all.
# --build-arg LOAD_TEST=1 adds Debian's Chromium and Playwright, so that scripts/load_test.py runs
# inside the container (docker exec linecnn python scripts/load_test.py).
FROM python:3.11-slim-bookworm

ARG TORCH=torch==2.13.0
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
ARG LOAD_TEST=0

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_CONSTRAINT=/app/constraints.txt

RUN useradd --create-home --uid 10001 linecnn \
    && mkdir /data && chown linecnn /data

WORKDIR /app

# Dependencies first, so changing a page does not reinstall torch. torch comes from its own index
# without its dependencies, which the second install then takes from PyPI, pinned.
COPY constraints.txt pyproject.toml README.md ./
COPY linecnn ./linecnn
RUN pip install --no-deps "$TORCH" --index-url "$TORCH_INDEX_URL" && pip install .
RUN if [ "$LOAD_TEST" = 1 ]; then \
        apt-get update && apt-get install -y --no-install-recommends chromium \
        && rm -rf /var/lib/apt/lists/* && pip install playwright; \
    fi

COPY app.py ./
COPY pages ./pages
# The laptop config, then the launcher with the hosting profile beside it, which wins over it.
COPY .streamlit/config.toml ./.streamlit/config.toml
COPY deploy ./deploy
# The load test and the server helper it starts its own server with.
COPY scripts ./scripts
COPY tests/__init__.py tests/helpers.py ./tests/
RUN mkdir /app/artifacts && chown linecnn /app/artifacts

USER linecnn
# Inside the container the app must answer on the container's interface for -p to reach it;
# the host decides who reaches that port (publish it on 127.0.0.1 for a proxy on the host).
ENV STREAMLIT_SERVER_ADDRESS=0.0.0.0 \
    STREAMLIT_SERVER_PORT=8501 \
    LINECNN_DATA_DIR=/data
VOLUME /data
EXPOSE 8501

HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:${STREAMLIT_SERVER_PORT}/_stcore/health', timeout=4)"

CMD ["python", "-m", "streamlit", "run", "deploy/serve.py"]
