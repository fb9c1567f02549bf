"""The values of the reading options that are not formats (those are :mod:`.formats`'),
in a module of their own so that the command line's option lists import nothing else."""

#: the treebank columns a corpus of symbols is read from (``--field``)
FIELDS = ("form", "lemma", "upos", "xpos", "deprel")
#: how raw text is cut into sentences (``--text-split``): blank-line paragraphs split by Punkt, or lines
SPLITS = ("paragraphs", "lines")
