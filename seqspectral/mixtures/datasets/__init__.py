"""Data generators and data sets of the mixtures' experiments, apart from the estimators.

- :mod:`.experts`: planted mixtures of linear regressions (Chaganty & Liang 2013, §6);
- :mod:`.bayesnets`: the networks and data sets of the convex-EM table (Guo & Schuurmans 2007).
"""
