"""Which model plays each role and how it is reached: the ids results are recorded under
(``identity``), the workers' handles (``ids``), the role's model server (``server``), building
a backend from an id (``loading``, the only one that imports torch) and how a generator's rows
are cut into forward passes (``passes``). Nothing is imported here: naming a model must not
load torch."""
