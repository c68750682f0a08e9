"""The peers of bench/engine_vs_peers.py: PyTorch eager and llama.cpp serving kforge's model and trace."""
