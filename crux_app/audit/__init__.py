"""The audit trail: who changed what, when and from where (``crux_app.models.AuditEvent``).

``context``: who is acting (a request, a job, a command), passed to the database as the
session setting ``audit.context``; ``triggers``: the declared audited tables and the PostgreSQL
triggers that record their every row change; ``events``: what the application records itself;
``reading``: the declared filters and the rows the page, the command and the API show.
"""
