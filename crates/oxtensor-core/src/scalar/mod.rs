//! The scalar ops: the element-level operations `Elemwise` maps over
//! tensors, with their names, output dtype rules, the `Composite` of
//! several and the `ScalarLoop` repeating one. They sit below both `ops`
//! (which wraps them in graph ops) and `kernels` (which computes them), so
//! neither needs the other for them. Mirrors `pytensor/scalar/basic.py`.

pub mod autocast;
pub mod composite;
mod composite_str;
mod op;
pub mod scalar_loop;
mod table;

pub use op::{OutputRule, ScalarOp};
pub use table::{ElemVisitor, ScalarFn, ScalarKind};
