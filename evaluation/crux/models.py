"""Where CRUX's stored results live: rows of the shared data model, since every page and the
other methods read them too. The judging job stores an LLM judge's ratings as ``Judgment``
rows (task ``passage_rating``) and its graded qrels as ``PassageQrel`` rows; ``evaluate``
caches token counts on ``Passage``. Their writes move the collection's data version through
``crux_app.data_version`` (signals, the importers' store and the job runner's bump after every
batch)."""

from crux_app.models import Judgment, Passage, PassageQrel

__all__ = ["Judgment", "Passage", "PassageQrel"]
