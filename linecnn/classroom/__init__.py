"""One server shared by many sessions: the training queue, the GPU lock, host settings, the data folder."""
