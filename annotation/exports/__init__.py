"""Campaign exports: labels and annotators as CSV, the CRUX platform's qrels / qlabels."""
