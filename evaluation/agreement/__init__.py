"""Agreement analysis: inter-annotator and human-vs-machine statistics (METHODS section 6).

``method/`` (the statistics: ``label_agreement`` and the modules it uses) is plain Python (no
Django); ``label_tables``, ``report``, ``report_coverage`` and ``html_report``
read the database and build the report.
"""
