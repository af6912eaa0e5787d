"""PyTensor's ``misc`` helpers that users import (`may_share_memory`)."""
