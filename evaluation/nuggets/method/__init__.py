"""The nugget method's math: TREC RAG nugget scores and where each vital nugget was lost."""
