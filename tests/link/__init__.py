"""Tests of the linkers outside the native VM."""
