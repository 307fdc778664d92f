"""The quality check (RAVENEA's local meta quality checker): the study's owner and the checkers of
a pool review a random sample of its annotations, accept them or flag them for re-annotation.

- ``access``: who may review which pool and annotation (scoped lookups, 404 otherwise);
- ``selectors``: the next annotation to review, progress against the target, the review form;
- ``services``: ``review_submit``, atomic and idempotent; a flag reopens a quota slot;
- ``labels``: which fields are reviewed and how labels compare (pure).

The figures (acceptance rate, checker-vs-annotator kappa) are the analysis's:
``analysis.review``. A flagged annotation is kept; analysis and export leave it out
(``Annotation.objects.exclude(review__outcome="flagged")``).
"""
