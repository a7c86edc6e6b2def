"""deploy/: the Procfile the demo starts, its runner, the image definition, the compose file and
the Grafana dashboard, checked without Docker (``docker compose config`` too where it exists)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.utils import timezone

from crux_app.jobs.usage import ModelUsage
from crux_app.models import Job
from operations.queues import declared_queues
from tests.operations.heartbeats import fresh_workers
from tests.operations.scraping import scrape

ROOT = Path(settings.BASE_DIR)
DEPLOY = ROOT / "deploy"
VENV_BIN = Path(sys.executable).parent
PROCESSES = {"web", "worker-cpu", "worker-webhooks", "worker-gpu", "beat"}
APP_SERVICES = {
    "web": "web",
    "worker-cpu": "worker-cpu",
    "worker-webhooks": "worker-webhooks",
    "worker-gpu0": "worker-gpu",
    "beat": "beat",
}


def procfile(text: str | None = None) -> dict[str, str]:
    """{name: command} of the Procfile's uncommented lines."""
    text = (DEPLOY / "Procfile").read_text() if text is None else text
    found = {}
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, sep, command = line.partition(":")
            assert sep and re.fullmatch(r"[a-z0-9-]+", name), line
            assert name not in found, f"{name} twice"
            found[name] = command.strip()
    return found


def _queues_of(command: str, cpu_queues: str) -> set[str]:
    words = shlex.split(command.replace("${CPU_QUEUES:-cpu}", cpu_queues))
    return set(words[words.index("-Q") + 1].split(",")) if "-Q" in words else set()


def test_the_procfile_declares_each_process_and_its_programs_exist():
    processes = procfile()
    assert set(processes) == PROCESSES
    for name, command in processes.items():
        program = shlex.split(command)[0]
        assert (VENV_BIN / program).exists() or shutil.which(program), (name, program)
    assert processes["beat"].startswith("celery -A crux_app beat")
    assert processes["web"].startswith("gunicorn crux_app.wsgi")
    text = (DEPLOY / "Procfile").read_text()
    assert re.search(r"^# model-server: vllm serve ", text, re.M)  # optional, documented


def test_the_workers_consume_every_declared_queue():
    cpu_queues = ",".join(q for q in declared_queues() if q not in ("gpu", "webhooks"))
    processes = procfile()
    of = {name: _queues_of(processes[name], cpu_queues) for name in processes}
    consumed = of["worker-cpu"] | of["worker-webhooks"] | of["worker-gpu"]
    assert consumed == set(declared_queues())
    assert of["worker-gpu"] == {"gpu"}
    # Deliveries never wait behind an import on the one-slot cpu worker.
    assert of["worker-webhooks"] == {"webhooks"} and "webhooks" not in of["worker-cpu"]


def test_run_process_expands_the_line_and_fills_the_cpu_queues(tmp_path):
    test_procfile = tmp_path / "Procfile"
    test_procfile.write_text("# a comment\nshow: echo ${CPU_QUEUES:-cpu} gpu${GPU_INDEX:-}@%h\n")
    env = {**os.environ, "PROCFILE": str(test_procfile), "GPU_INDEX": "3"}
    env.pop("CPU_QUEUES", None)
    shown = subprocess.run(
        [DEPLOY / "run_process.sh", "show"], env=env, capture_output=True, text=True, timeout=120
    )
    assert shown.returncode == 0, shown.stderr
    cpu_queues = ",".join(q for q in declared_queues() if q not in ("gpu", "webhooks"))
    assert shown.stdout == f"{cpu_queues} gpu3@%h\n"
    missing = subprocess.run(
        [DEPLOY / "run_process.sh", "nosuch"], env=env, capture_output=True, text=True
    )
    assert missing.returncode == 64 and "no process 'nosuch'" in missing.stderr


def test_the_demo_starts_every_process_of_the_procfile_through_run_process():
    demo = (ROOT / "scripts" / "demo.sh").read_text()
    assert '"$ROOT/deploy/run_process.sh" "$1"' in demo
    started = set(re.findall(r"start_process ([a-z0-9-]+)", demo))
    assert started == PROCESSES
    assert "celery -A" not in demo and "gunicorn crux_app" not in demo  # only in the Procfile


def test_the_compose_file_has_every_service_with_its_settings():
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    assert {"postgres", "redis", "migrate", "vllm", *APP_SERVICES} <= set(services)
    for service, process in APP_SERVICES.items():
        spec = services[service]
        assert spec["command"] == ["deploy/run_process.sh", process]
        assert spec["build"] == {"context": "..", "dockerfile": "deploy/Dockerfile"}
        env = spec["environment"]
        for name in ("DJANGO_SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL"):
            assert name in env, (service, name)
        assert env["DJANGO_SECRET_KEY"].startswith("${"), "no secret in the file"
        assert "${POSTGRES_PASSWORD" in env["DATABASE_URL"]
        assert spec["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    for gpu_service in ("worker-gpu0", "vllm"):
        devices = services[gpu_service]["deploy"]["resources"]["reservations"]["devices"]
        assert devices[0]["capabilities"] == ["gpu"]
    assert services["worker-gpu0"]["environment"]["GPU_INDEX"] == "0"
    assert "worker_alive" in " ".join(services["worker-cpu"]["healthcheck"]["test"])
    assert "/healthz" in " ".join(services["web"]["healthcheck"]["test"])
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    docker = shutil.which("docker")
    if (
        docker
        and subprocess.run([docker, "compose", "version"], capture_output=True).returncode == 0
    ):
        env = {**os.environ, "DJANGO_SECRET_KEY": "x", "POSTGRES_PASSWORD": "y"}
        checked = subprocess.run(
            [docker, "compose", "-f", DEPLOY / "compose.yaml", "config", "-q"],
            env=env, capture_output=True, text=True,
        )  # fmt: skip
        assert checked.returncode == 0, checked.stderr


def _instructions(text: str) -> list[tuple[str, str]]:
    joined = re.sub(r"\\\n", " ", text)
    lines = [line.strip() for line in joined.splitlines()]
    return [
        (line.split(None, 1)[0].upper(), line.split(None, 1)[1] if " " in line else "")
        for line in lines
        if line and not line.startswith("#")
    ]


def test_the_dockerfile_copies_what_exists_and_runs_a_procfile_process_unprivileged():
    steps = _instructions((DEPLOY / "Dockerfile").read_text())
    keywords = [keyword for keyword, _ in steps]
    assert keywords[0] in {"ARG", "FROM"} and "FROM" in keywords
    known = {"ARG", "FROM", "ENV", "WORKDIR", "RUN", "COPY", "USER", "EXPOSE", "HEALTHCHECK", "CMD"}
    assert set(keywords) <= known
    for keyword, rest in steps:
        if keyword == "COPY":
            source = rest.split()[0]
            assert source == "." or (ROOT / source).exists(), source
        if keyword == "RUN":
            for command in re.split(r"&&", rest):
                words = shlex.split(command)
                assert words, rest
                program = next(w for w in words if "=" not in w)
                assert program in {"apt-get", "rm", "python", "useradd", "mkdir", "chown"} or (
                    program.startswith("/app/.venv/bin/")
                ), program
                if "manage.py" in words:
                    assert (ROOT / "manage.py").exists()
    user = [rest for keyword, rest in steps if keyword == "USER"]
    assert user and user[-1] != "root"
    cmd = json.loads(next(rest for keyword, rest in steps if keyword == "CMD"))
    assert cmd[0] == "deploy/run_process.sh" and cmd[1] in procfile()
    assert os.access(ROOT / cmd[0], os.X_OK)
    ignored = (DEPLOY / "Dockerfile.dockerignore").read_text().split()
    assert {".venv", "var", ".git"} <= set(ignored)


@pytest.mark.django_db
def test_the_grafana_dashboard_plots_only_exposed_metrics(client):
    dashboard = json.loads((DEPLOY / "grafana-dashboard.json").read_text())
    fresh_workers()
    job = Job.objects.create(kind="import", state=Job.State.RUNNING, running_since=timezone.now())
    job.add_usage({"embedder": ModelUsage(calls=1, forward_tokens=8)})  # a model was called
    exposed = {name for name, _ in scrape(client)}
    client.get("/accounts/login/")
    exposed |= {name for name, _ in scrape(client)}
    used = set()
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            used |= set(re.findall(r"\bcrux_[a-z_]+", target["expr"]))
    assert len(dashboard["panels"]) >= 12
    assert used and used <= exposed, used - exposed
