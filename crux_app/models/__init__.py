"""The shared data model: collections of topics, passages, runs, outputs, judges and jobs."""

from .audit import AuditEvent
from .collection import (
    Collection,
    GeneratedOutput,
    OutputContext,
    Passage,
    Run,
    RunEntry,
    SubQuestion,
    Topic,
)
from .ensemble import EnsembleBuild, JudgeEnsemble, JudgeEnsembleMember
from .job import Job
from .job_shard import JobShard
from .job_usage import JobModelUsage
from .judgment import CoverageLabel, Judge, Judgment, PassageQrel, SubtopicQrel
from .worker import WorkerHeartbeat
from .workspace import Workspace, WorkspaceMember

__all__ = [
    "AuditEvent",
    "Collection",
    "CoverageLabel",
    "EnsembleBuild",
    "GeneratedOutput",
    "Job",
    "JobModelUsage",
    "JobShard",
    "Judge",
    "JudgeEnsemble",
    "JudgeEnsembleMember",
    "Judgment",
    "OutputContext",
    "Passage",
    "PassageQrel",
    "Run",
    "RunEntry",
    "SubQuestion",
    "SubtopicQrel",
    "Topic",
    "WorkerHeartbeat",
    "Workspace",
    "WorkspaceMember",
]
