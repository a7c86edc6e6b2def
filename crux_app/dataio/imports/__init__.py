"""One module per import format (hub release, labeling platform, TREC topics, runs, qrels and
passages, QA records) and the ``import`` job that runs any of them on an upload; ``catalog``
lists the formats by name."""
