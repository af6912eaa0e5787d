//! `walk` and `general_toposort`: the core's walks over any Python objects,
//! the expansion (or the dependencies) given as a Python callable. Objects
//! are numbered as they are met, by `hash_fn(obj)` or by identity, and the
//! core walks the numbers.

use crate::errors::IntoPyResult;
use oxtensor_core::graph::traversal;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyIterator, PyList, PyTuple};
use std::cell::RefCell;

/// The objects met so far, numbered, and the first error a callback raised.
struct Items<'py> {
    objs: Vec<Bound<'py, PyAny>>,
    index: Bound<'py, PyDict>,
    hash_fn: Option<Bound<'py, PyAny>>,
    error: Option<PyErr>,
}

impl<'py> Items<'py> {
    fn new(py: Python<'py>, hash_fn: Option<Bound<'py, PyAny>>) -> Self {
        Items {
            objs: Vec::new(),
            index: PyDict::new(py),
            hash_fn: hash_fn.filter(|f| !f.is_none()),
            error: None,
        }
    }

    /// The number of `obj`, given one if it is new.
    fn number(&mut self, obj: Bound<'py, PyAny>) -> PyResult<usize> {
        let key = match &self.hash_fn {
            Some(f) => f.call1((&obj,))?,
            None => (obj.as_ptr() as usize).into_pyobject(obj.py())?.into_any(),
        };
        if let Some(i) = self.index.get_item(&key)? {
            return i.extract();
        }
        self.index.set_item(key, self.objs.len())?;
        self.objs.push(obj);
        Ok(self.objs.len() - 1)
    }

    /// `f(obj)` as numbers (`None` is no items), and the raw result; after
    /// an error nothing more is expanded and the error is kept.
    fn expand(
        &mut self,
        f: &Bound<'py, PyAny>,
        i: usize,
    ) -> (Vec<usize>, Option<Bound<'py, PyAny>>) {
        if self.error.is_some() {
            return (Vec::new(), None);
        }
        match self.try_expand(f, i) {
            Ok(found) => found,
            Err(e) => {
                self.error = Some(e);
                (Vec::new(), None)
            }
        }
    }

    fn try_expand(
        &mut self,
        f: &Bound<'py, PyAny>,
        i: usize,
    ) -> PyResult<(Vec<usize>, Option<Bound<'py, PyAny>>)> {
        let got = f.call1((&self.objs[i],))?;
        if got.is_none() {
            return Ok((Vec::new(), Some(got)));
        }
        let items = got.try_iter()?.collect::<PyResult<Vec<_>>>()?;
        let ids = items
            .into_iter()
            .map(|o| self.number(o))
            .collect::<PyResult<_>>()?;
        Ok((ids, Some(got)))
    }

    fn finish(&mut self) -> PyResult<()> {
        self.error.take().map_or(Ok(()), Err)
    }
}

/// `walk(nodes, expand, bfs=True, return_children=False, hash_fn=None)`:
/// every object reachable from `nodes` through `expand`, each once,
/// breadth or depth first; with `return_children`, `(obj, expand(obj))`.
#[pyfunction]
#[pyo3(signature = (nodes, expand, bfs = true, return_children = false, hash_fn = None))]
pub fn walk<'py>(
    nodes: Bound<'py, PyAny>,
    expand: Bound<'py, PyAny>,
    bfs: bool,
    return_children: bool,
    hash_fn: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyIterator>> {
    let py = nodes.py();
    let mut items = Items::new(py, hash_fn);
    let start = nodes
        .try_iter()?
        .map(|o| items.number(o?))
        .collect::<PyResult<Vec<_>>>()?;
    let mut children = vec![None; 0];
    let step = |i: usize| {
        let (ids, raw) = items.expand(&expand, i);
        children.resize(children.len().max(i + 1), None);
        children[i] = raw;
        ids
    };
    let order = match bfs {
        true => traversal::walk_bfs(&start, step),
        false => traversal::walk_dfs(&start, step),
    };
    items.finish()?;
    let out = order
        .into_iter()
        .map(|i| {
            let obj = items.objs[i].clone();
            match return_children {
                true => {
                    let kids = children[i]
                        .clone()
                        .unwrap_or_else(|| py.None().into_bound(py));
                    Ok(PyTuple::new(py, [obj, kids])?.into_any())
                }
                false => Ok(obj),
            }
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, out)?.as_any().try_iter()
}

/// `general_toposort(outputs, deps)`: `outputs` and everything they depend
/// on through `deps(obj)`, dependencies first, in PyTensor's order; a
/// `ValueError` if the dependencies have a cycle. `compute_deps_cache`,
/// when given, is the dependency function; `clients`, when given, is
/// filled with the objects depending on each object.
#[pyfunction]
#[pyo3(signature = (outputs, deps = None, compute_deps_cache = None, deps_cache = None, clients = None))]
pub fn general_toposort<'py>(
    outputs: Bound<'py, PyAny>,
    deps: Option<Bound<'py, PyAny>>,
    compute_deps_cache: Option<Bound<'py, PyAny>>,
    deps_cache: Option<Bound<'py, PyAny>>,
    clients: Option<Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyList>> {
    let _ = deps_cache; // PyTensor's cache of `compute_deps_cache`; ours is `Items`
    let py = outputs.py();
    let f = compute_deps_cache.or(deps).ok_or_else(|| {
        pyo3::exceptions::PyTypeError::new_err(
            "general_toposort needs `deps` or `compute_deps_cache`",
        )
    })?;
    let items = RefCell::new(Items::new(py, None));
    let start = outputs
        .try_iter()?
        .map(|o| items.borrow_mut().number(o?))
        .collect::<PyResult<Vec<_>>>()?;
    let order = traversal::kahn(&start, |i| items.borrow_mut().expand(&f, i).0);
    let mut items = items.into_inner();
    items.finish()?;
    let order = order.py()?;
    if let Some(clients) = clients {
        fill_clients(&mut items, &f, &order, &clients)?;
    }
    PyList::new(py, order.into_iter().map(|i| items.objs[i].clone()))
}

/// `clients[dep]`: the objects that list `dep` among their dependencies.
fn fill_clients<'py>(
    items: &mut Items<'py>,
    f: &Bound<'py, PyAny>,
    order: &[usize],
    clients: &Bound<'py, PyDict>,
) -> PyResult<()> {
    for &i in order {
        let (ids, _) = items.expand(f, i);
        items.finish()?;
        for d in ids {
            let key = &items.objs[d];
            match clients.get_item(key)? {
                Some(list) => list.call_method1("append", (&items.objs[i],))?,
                None => {
                    clients.set_item(key, PyList::new(items.objs[i].py(), [&items.objs[i]])?)?;
                    continue;
                }
            };
        }
    }
    Ok(())
}
