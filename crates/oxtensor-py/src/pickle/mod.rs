//! Pickling and deep-copying graphs, function graphs and fused ops without
//! recursion: what goes into which snapshot, and the plain data each
//! object reduces to.

pub mod composite;
pub mod fgraph;
pub mod graph;
pub mod session;

use pyo3::prelude::*;

/// `obj.__reduce_ex__(protocol)` for a class with a native layout: what
/// protocol 2 makes (`copyreg.__newobj__` or `__newobj_ex__` over
/// `__getnewargs__`/`__getnewargs_ex__`, and the state), for every
/// protocol. Protocols 0 and 1 otherwise refuse such classes
/// (`copyreg._reduce_ex`); PyTensor's objects pickle with any protocol.
pub(crate) fn reduce_ex_any_protocol<'py>(
    obj: &Bound<'py, PyAny>,
    protocol: i64,
) -> PyResult<Bound<'py, PyAny>> {
    let object = obj.py().import("builtins")?.getattr("object")?;
    object
        .getattr("__reduce_ex__")?
        .call1((obj, protocol.max(2)))
}
