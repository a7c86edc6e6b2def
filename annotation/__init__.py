"""Human annotation, in parts by responsibility.

``PARTS`` is their order, top first: a part imports only the parts after it (the architecture
tests read it, ``tests/architecture/test_annotation_parts.py``). What is in no part is the top,
which may import every part and which no part imports: the pages (``views/``), the routes
(``urls.py``), the commands (``management/``), ``admin.py``, ``apps.py``, ``templatetags/`` and
the built-in task types' declaration (``builtin_task_types.py``). A part is a sub-package or a
module of this package; the migrations belong to ``models``.
"""

PARTS = (
    "review",  # review campaigns over disagreements, their decisions, merges and API
    "workspace",  # an annotator submitting, undoing, drafting; the workspace API
    "campaigns",  # making campaigns, their forms, preview, webhook events and API
    "exports",  # campaign labels as CSV and as the CRUX platform's files
    "queue",  # the next item, reservations, skips; which items a campaign holds
    "crowd",  # crowd models: aggregation into a judge, worker skill, crowd control, payment
    "quality",  # gold, attention and speeding checks, agreement, progress
    "accounts",  # annotator accounts: invited, or arriving from Prolific
    "prolific",  # who may arrive from a Prolific study link
    "labels",  # every judge's stored labels of a collection; post-editing suggestions
    "models",  # the annotation tables
    "task_types",  # the task-type registry and the built-ins' names, answers, checks (ground)
)
