"""Reference GPU series measured on real GPUs: bundled ``*.json`` files and the code that reads them."""
