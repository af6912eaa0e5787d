//! What a `FunctionGraph` holds, read from Python: inputs, outputs, nodes,
//! variables, clients, the order of its nodes and membership.

use super::PyFunctionGraph;
use crate::convert::import::Memo;
use crate::errors::IntoPyResult;
use crate::graph::fgraph::destroyhandler::PyDestroyHandler;
use oxtensor_core::graph::{Client, Orderings, VarId};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PySet, PyTuple};

impl PyFunctionGraph {
    /// The Python form of a client: `(apply, i)` or `("output", i)`.
    pub(crate) fn client_obj<'py>(
        &self,
        py: Python<'py>,
        c: Client,
    ) -> PyResult<Bound<'py, PyTuple>> {
        match c {
            Client::Node(n, i) => PyTuple::new(
                py,
                [self.memo.node(py, n)?, i.into_pyobject(py)?.into_any()],
            ),
            Client::Output(i) => PyTuple::new(
                py,
                [
                    "output".into_pyobject(py)?.into_any(),
                    i.into_pyobject(py)?.into_any(),
                ],
            ),
        }
    }

    pub(crate) fn vars_list<'py>(
        &self,
        py: Python<'py>,
        ids: &[VarId],
    ) -> PyResult<Bound<'py, PyList>> {
        self.objects_list(py, ids, Memo::var)
    }

    /// The Python objects of `ids`, variables or nodes (`Memo::var`,
    /// `Memo::node`), as a list.
    fn objects_list<'py, Id: Copy>(
        &self,
        py: Python<'py>,
        ids: &[Id],
        object: fn(&Memo, Python<'py>, Id) -> PyResult<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let objs = ids.iter().map(|&id| object(&self.memo, py, id));
        PyList::new(py, objs.collect::<PyResult<Vec<_>>>()?)
    }

    pub(crate) fn python_orderings(slf: &Bound<'_, Self>) -> PyResult<Orderings> {
        let py = slf.py();
        let mut all = Orderings::new();
        let features = slf.borrow().python_features(py);
        for f in features {
            let f = f.bind(py);
            // The destroy handler's orderings come from its core feature.
            if !f.hasattr("orderings")? || f.is_instance_of::<PyDestroyHandler>() {
                continue;
            }
            let ords = f.call_method1("orderings", (slf,))?;
            let this = slf.borrow();
            for item in ords.call_method0("items")?.try_iter()? {
                let (node, before): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item?.extract()?;
                let n = this.node_id(&node)?;
                for b in before.try_iter()? {
                    all.entry(n).or_default().push(this.node_id(&b?)?);
                }
            }
        }
        Ok(all)
    }
}

#[pymethods]
impl PyFunctionGraph {
    /// The declared inputs.
    #[getter]
    pub(crate) fn inputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.vars_list(py, self.core()?.inputs())
    }

    /// The outputs.
    #[getter]
    pub(crate) fn outputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.vars_list(py, self.core()?.outputs())
    }

    /// The `Apply` nodes in the graph.
    #[getter]
    pub(crate) fn apply_nodes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PySet>> {
        let nodes = self.core()?.apply_nodes().map(|n| self.memo.node(py, n));
        PySet::new(py, nodes.collect::<PyResult<Vec<_>>>()?)
    }

    /// The variables the outputs depend on (unused inputs excluded).
    #[getter]
    pub(crate) fn variables<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PySet>> {
        let vars = self.core()?.variables().map(|v| self.memo.var(py, v));
        PySet::new(py, vars.collect::<PyResult<Vec<_>>>()?)
    }

    /// `{variable: [(apply, i) or ("output", i), ...]}`.
    #[getter(clients)]
    pub(crate) fn clients_map<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let keys: Vec<VarId> = self.core()?.client_keys().collect();
        let d = PyDict::new(py);
        for v in keys {
            let list = PyList::new(
                py,
                self.core()?
                    .clients(v)
                    .iter()
                    .map(|&c| self.client_obj(py, c))
                    .collect::<PyResult<Vec<_>>>()?,
            )?;
            // A replaced variable keeps an empty entry (as in PyTensor);
            // after compiling it has no object until asked for here.
            d.set_item(self.var_object(py, v)?, list)?;
        }
        Ok(d)
    }

    /// The clients of one variable.
    pub(crate) fn get_clients<'py>(
        &self,
        py: Python<'py>,
        var: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let fg = self.core()?;
        let Some(v) = self.memo.var_id(&var) else {
            return Ok(PyList::empty(py));
        };
        PyList::new(
            py,
            fg.clients(v)
                .iter()
                .map(|&c| self.client_obj(py, c))
                .collect::<PyResult<Vec<_>>>()?,
        )
    }

    /// `{output index: input index}` for updates, if given.
    #[getter]
    pub(crate) fn update_mapping(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.update_mapping.as_ref().map(|u| u.clone_ref(py))
    }

    /// The attached Python features.
    #[getter]
    pub(crate) fn _features<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.features.iter().map(|f| f.clone_ref(py)))
    }

    /// The nodes in dependency order (features' orderings included).
    pub(crate) fn toposort<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyList>> {
        let py = slf.py();
        let extra = Self::python_orderings(slf)?;
        let this = slf.borrow();
        let order = this.core()?.toposort_with(&extra).py()?;
        this.objects_list(py, &order, Memo::node)
    }

    /// `{node: [nodes that must run first]}` from every feature.
    pub(crate) fn orderings<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyDict>> {
        let py = slf.py();
        let mut all = Self::python_orderings(slf)?;
        let this = slf.borrow();
        for (n, before) in this.core()?.orderings().py()? {
            all.entry(n).or_default().extend(before);
        }
        let d = PyDict::new(py);
        for (n, before) in all {
            d.set_item(
                this.memo.node(py, n)?,
                this.objects_list(py, &before, Memo::node)?,
            )?;
        }
        Ok(d)
    }

    pub(crate) fn __contains__(&self, obj: Bound<'_, PyAny>) -> PyResult<bool> {
        let fg = self.core()?;
        if let Some(v) = self.memo.var_id(&obj) {
            return Ok(fg.has_var(v));
        }
        Ok(self.memo.node_id(&obj).is_some_and(|n| fg.has_node(n)))
    }
}
