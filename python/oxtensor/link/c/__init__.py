"""PyTensor's ``link.c`` names that do not depend on C code (oxtensor has
no C backend)."""
