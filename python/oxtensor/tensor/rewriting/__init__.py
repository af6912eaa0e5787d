"""The tensor rewrites: built into the Rust core and registered in
``optdb``'s phases; `basic` has the decorators that register more."""
