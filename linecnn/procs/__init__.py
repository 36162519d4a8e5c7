"""Child processes supervised as one idea: started in a process group of their own, their lines read on
threads, their beats heard, their silence bounded, their whole group signalled and reaped.

The benchmark worker, the profile worker and torchrun all run through ``child``; the workers' and the
ranks' beats and the parent's bound on their silence are ``beat``'s. This package imports neither
``linecnn.bench`` nor ``linecnn.parallel``: both use it.
"""
