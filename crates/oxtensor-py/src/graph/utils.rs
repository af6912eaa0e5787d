//! Graph utilities under PyTensor's names (`graph_inputs`, `ancestors`,
//! `io_toposort`, `clone_get_equiv`, `clone_replace`, `equal_computations`,
//! ...). Each imports the Python graph into a scratch arena, runs the core
//! algorithm and maps the ids back.

use crate::convert::import::Memo;
use crate::errors::IntoPyResult;
use oxtensor_core::graph::{compare, dependence, traversal, Graph, NodeId, VarId};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

/// `d[k]`, or `KeyError`.
pub fn lookup<'py>(d: &Bound<'py, PyDict>, k: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    d.get_item(k)?.ok_or_else(|| {
        pyo3::exceptions::PyKeyError::new_err(k.str().map(|s| s.to_string()).unwrap_or_default())
    })
}

/// Maps `v` to a clone of itself (`copy`) or to itself, unless `equiv`
/// maps it already.
fn map_once(equiv: &Bound<'_, PyDict>, v: &Bound<'_, PyAny>, copy: bool) -> PyResult<()> {
    if !equiv.contains(v)? {
        let new = if copy {
            v.call_method0("clone")?
        } else {
            v.clone()
        };
        equiv.set_item(v, new)?;
    }
    Ok(())
}

/// A list of variables from a variable or an iterable of them.
fn as_list<'py>(graphs: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    if graphs.is_instance_of::<crate::graph::variable::PyVariable>() {
        return PyList::new(graphs.py(), [graphs]);
    }
    PyList::new(
        graphs.py(),
        graphs.try_iter()?.collect::<PyResult<Vec<_>>>()?,
    )
}

struct Scratch {
    g: Graph,
    memo: Memo,
}

impl Scratch {
    fn new() -> Self {
        Scratch {
            g: Graph::new(),
            memo: Memo::default(),
        }
    }

    fn import(&mut self, vars: &Bound<'_, PyAny>) -> PyResult<Vec<VarId>> {
        self.memo.import_vars(&mut self.g, as_list(vars)?.as_any())
    }

    fn optional(&mut self, vars: Option<Bound<'_, PyAny>>) -> PyResult<Vec<VarId>> {
        match vars.filter(|v| !v.is_none()) {
            Some(v) => self.import(&v),
            None => Ok(Vec::new()),
        }
    }

    /// A scratch graph holding `graphs` and the optional `others`.
    fn with_optional(
        graphs: &Bound<'_, PyAny>,
        others: Option<Bound<'_, PyAny>>,
    ) -> PyResult<(Self, Vec<VarId>, Vec<VarId>)> {
        let mut s = Scratch::new();
        let main = s.import(graphs)?;
        let others = s.optional(others)?;
        Ok((s, main, others))
    }

    fn vars<'py>(&self, py: Python<'py>, ids: &[VarId]) -> PyResult<Bound<'py, PyList>> {
        PyList::new(
            py,
            ids.iter()
                .map(|&v| self.memo.var(py, v))
                .collect::<PyResult<Vec<_>>>()?,
        )
    }

    fn nodes<'py>(&self, py: Python<'py>, ids: &[NodeId]) -> PyResult<Bound<'py, PyList>> {
        PyList::new(
            py,
            ids.iter()
                .map(|&n| self.memo.node(py, n))
                .collect::<PyResult<Vec<_>>>()?,
        )
    }
}

/// A `#[pyfunction]` running a traversal of the core on a scratch copy of
/// the graphs: `(graphs, blockers=None)` for the ancestor walks,
/// `(ins, outs)` for what lies between; `vars` or `nodes` maps the result
/// back. Takes a list of them, each ended by `;`.
macro_rules! scratch_walk {
    ($(#[$doc:meta])* $name:ident(graphs, blockers) -> $back:ident) => {
        $(#[$doc])*
        #[pyfunction]
        #[pyo3(signature = (graphs, blockers = None))]
        pub fn $name<'py>(
            graphs: Bound<'py, PyAny>,
            blockers: Option<Bound<'py, PyAny>>,
        ) -> PyResult<Bound<'py, PyList>> {
            let (s, outs, blockers) = Scratch::with_optional(&graphs, blockers)?;
            s.$back(graphs.py(), &traversal::$name(&s.g, &outs, &blockers))
        }
    };
    ($(#[$doc:meta])* $name:ident(ins, outs) -> $back:ident) => {
        $(#[$doc])*
        #[pyfunction]
        pub fn $name<'py>(
            ins: Bound<'py, PyAny>,
            outs: Bound<'py, PyAny>,
        ) -> PyResult<Bound<'py, PyList>> {
            let mut s = Scratch::new();
            let (o, i) = (s.import(&outs)?, s.import(&ins)?);
            s.$back(ins.py(), &traversal::$name(&s.g, &i, &o))
        }
    };
    ($($(#[$doc:meta])* $name:ident($a:ident, $b:ident) -> $back:ident;)*) => {
        $(scratch_walk!($(#[$doc])* $name($a, $b) -> $back);)*
    };
}

scratch_walk! {
    /// Every variable the graphs depend on (graphs included), depth first.
    ancestors(graphs, blockers) -> vars;
    /// The nodes computing the ancestors, each once.
    apply_ancestors(graphs, blockers) -> nodes;
    /// The owner-less ancestors (roots and constants).
    graph_inputs(graphs, blockers) -> vars;
    /// The variables between `ins` and `outs`.
    vars_between(ins, outs) -> vars;
    /// Owner-less variables between `ins` and `outs` that are not in `ins`.
    orphans_between(ins, outs) -> vars;
    /// The nodes between `ins` and `outs`.
    applys_between(ins, outs) -> nodes;
}

/// The owner-less ancestors that are neither constants nor
/// `NominalVariable`s (PyTensor's atomic variables, which stand for
/// themselves): what a function of `graphs` needs.
pub fn explicit_inputs<'py>(outputs: &Bound<'py, PyList>) -> PyResult<Bound<'py, PyList>> {
    let mut s = Scratch::new();
    let outs = s.import(outputs.as_any())?;
    let ids: Vec<VarId> = traversal::graph_inputs(&s.g, &outs, &[])
        .into_iter()
        .filter(|v| !s.g.var(*v).is_atomic())
        .collect();
    s.vars(outputs.py(), &ids)
}

/// Nodes between `inputs` and `outputs` in dependency order.
#[pyfunction]
#[pyo3(signature = (inputs, outputs, orderings = None))]
pub fn io_toposort<'py>(
    inputs: Bound<'py, PyAny>,
    outputs: Bound<'py, PyAny>,
    orderings: Option<Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyList>> {
    let mut s = Scratch::new();
    let (o, i) = (s.import(&outputs)?, s.import(&inputs)?);
    let mut ords = traversal::NodeOrderings::new();
    if let Some(d) = orderings {
        for (node, before) in d.iter() {
            s.import(&node.getattr("outputs")?)?;
            let n = s.memo.node_id(&node).ok_or_else(|| {
                pyo3::exceptions::PyValueError::new_err("ordering key is not a node of the graph")
            })?;
            for b in before.try_iter()? {
                let b = b?;
                s.import(&b.getattr("outputs")?)?;
                ords.entry(n).or_default().extend(s.memo.node_id(&b));
            }
        }
    }
    let order = traversal::toposort_with_orderings(&s.g, &o, &i, &ords).py()?;
    s.nodes(inputs.py(), &order)
}

/// Nodes computing `graphs` in dependency order, not past `blockers`.
#[pyfunction]
#[pyo3(signature = (graphs, blockers = None))]
pub fn toposort<'py>(
    graphs: Bound<'py, PyAny>,
    blockers: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    let (s, outs, blockers) = Scratch::with_optional(&graphs, blockers)?;
    let order = traversal::toposort(&s.g, &outs, &blockers).py()?;
    s.nodes(graphs.py(), &order)
}

/// Whether `xs` compute the same as `ys`, `in_xs[k]` standing for `in_ys[k]`.
/// As in PyTensor, the graphs may include raw values (see [`raw_pair_equal`]).
#[pyfunction]
#[pyo3(signature = (xs, ys, in_xs = None, in_ys = None, strict_dtype = true))]
pub fn equal_computations(
    xs: Bound<'_, PyAny>,
    ys: Bound<'_, PyAny>,
    in_xs: Option<Bound<'_, PyAny>>,
    in_ys: Option<Bound<'_, PyAny>>,
    strict_dtype: bool,
) -> PyResult<bool> {
    let _ = strict_dtype;
    let (xs, ys) = (as_list(&xs)?, as_list(&ys)?);
    if xs.len() != ys.len() {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "The number of graphs/inputs doesn't match.",
        ));
    }
    let (var_xs, var_ys) = (PyList::empty(xs.py()), PyList::empty(xs.py()));
    for (x, y) in xs.iter().zip(ys.iter()) {
        match raw_pair_equal(&x, &y)? {
            Some(false) => return Ok(false),
            Some(true) => {}
            None => {
                var_xs.append(x)?;
                var_ys.append(y)?;
            }
        }
    }
    let mut s = Scratch::new();
    let (x, y) = (s.import(var_xs.as_any())?, s.import(var_ys.as_any())?);
    let (ix, iy) = (s.optional(in_xs)?, s.optional(in_ys)?);
    compare::equal_computations(&s.g, &x, &y, &ix, &iy).py()
}

/// A pair in which a side is not a variable: two raw values compare with
/// `np.array_equal`, a raw value matches a constant holding equal data, and
/// nothing else. `None` when both sides are variables (the core compares them).
fn raw_pair_equal(x: &Bound<'_, PyAny>, y: &Bound<'_, PyAny>) -> PyResult<Option<bool>> {
    let data = |v: &Bound<'_, PyAny>| -> Option<Py<PyAny>> {
        let var = v.cast::<crate::graph::variable::PyVariable>().ok()?;
        let data = var
            .borrow_mut()
            .data_obj(v.py())
            .ok()
            .flatten()
            .map(Bound::unbind);
        data
    };
    let is_var = |v: &Bound<'_, PyAny>| v.is_instance_of::<crate::graph::variable::PyVariable>();
    let np = x.py().import("numpy")?;
    let array_equal = |a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>| -> PyResult<bool> {
        np.call_method1("array_equal", (a, b))?.is_truthy()
    };
    Ok(match (is_var(x), is_var(y)) {
        (true, true) => None,
        (false, false) => Some(array_equal(x, y)?),
        (true, false) => Some(match data(x) {
            Some(d) => array_equal(d.bind(x.py()), y)?,
            None => false,
        }),
        (false, true) => Some(match data(y) {
            Some(d) => array_equal(x, d.bind(y.py()))?,
            None => false,
        }),
    })
}

/// Copies of the graph between `inputs` and `outputs`: `{old: new}` for
/// every variable and node. Constants are shared (their `clone` is themselves).
#[pyfunction]
#[pyo3(signature = (inputs, outputs, copy_inputs = true, copy_orphans = true, memo = None))]
pub fn clone_get_equiv<'py>(
    inputs: &Bound<'py, PyList>,
    outputs: &Bound<'py, PyList>,
    copy_inputs: bool,
    copy_orphans: bool,
    memo: Option<Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    clone_equiv(inputs, outputs, (copy_inputs, copy_orphans), memo, true)
}

/// `clone_get_equiv` with `clone_with_new_inputs(strict=...)`: not strict,
/// a node given inputs of other types is rebuilt by its op's `make_node`
/// instead of converting them (`clone_replace(rebuild_strict=False)`).
fn clone_equiv<'py>(
    inputs: &Bound<'py, PyList>,
    outputs: &Bound<'py, PyList>,
    (copy_inputs, copy_orphans): (bool, bool),
    memo: Option<Bound<'py, PyDict>>,
    strict: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let py = inputs.py();
    let equiv = memo.unwrap_or_else(|| PyDict::new(py));
    for inp in inputs.iter() {
        map_once(&equiv, &inp, copy_inputs)?;
    }
    let blockers = PyList::new(py, equiv.keys().iter())?;
    for node in io_toposort(blockers.into_any(), outputs.clone().into_any(), None)?.iter() {
        let old_inputs = node.getattr("inputs")?.cast_into::<PyList>()?;
        let mut new_inputs = Vec::with_capacity(old_inputs.len());
        for inp in old_inputs.iter() {
            map_once(&equiv, &inp, copy_orphans)?;
            new_inputs.push(lookup(&equiv, &inp)?);
        }
        let new_node = node.call_method1(
            "clone_with_new_inputs",
            (PyList::new(py, new_inputs)?, strict),
        )?;
        equiv.set_item(&node, &new_node)?;
        for (old, new) in node
            .getattr("outputs")?
            .try_iter()?
            .zip(new_node.getattr("outputs")?.try_iter()?)
        {
            let old = old?;
            if !equiv.contains(&old)? {
                equiv.set_item(old, new?)?;
            }
        }
    }
    for out in outputs.iter() {
        if !equiv.contains(&out)? {
            equiv.set_item(
                &out,
                if copy_orphans {
                    out.call_method0("clone")?
                } else {
                    out.clone()
                },
            )?;
        }
    }
    Ok(equiv)
}

/// Clones for a `FunctionGraph(..., clone=True)`.
pub fn clone_io<'py>(
    inputs: &Bound<'py, PyList>,
    outputs: &Bound<'py, PyList>,
    kwds: Option<&Bound<'py, PyDict>>,
) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyList>)> {
    let py = inputs.py();
    let flag = |name: &str| -> PyResult<bool> {
        Ok(
            match kwds.map(|k| k.get_item(name)).transpose()?.flatten() {
                Some(v) => v.is_truthy()?,
                None => true,
            },
        )
    };
    let memo = kwds
        .map(|k| k.get_item("memo"))
        .transpose()?
        .flatten()
        .filter(|m| !m.is_none())
        .map(|m| m.cast_into::<PyDict>())
        .transpose()?;
    let equiv = clone_get_equiv(
        inputs,
        outputs,
        flag("copy_inputs")?,
        flag("copy_orphans")?,
        memo,
    )?;
    let map = |l: &Bound<'py, PyList>| -> PyResult<Bound<'py, PyList>> {
        PyList::new(
            py,
            l.iter()
                .map(|v| lookup(&equiv, &v))
                .collect::<PyResult<Vec<_>>>()?,
        )
    };
    Ok((map(inputs)?, map(outputs)?))
}

/// A copy of `output`'s graph with each key of `replace` substituted by its
/// value. `rebuild_kwds`, as PyTensor's: `copy_inputs_over=True` (the
/// default) keeps the graph's root variables and the replacements' graphs
/// as they are; `False` uses clones of them (a shared variable's clone
/// shares its value). `rebuild_strict=True` (the default) converts each
/// replacement to the replaced variable's type; `False` takes it as it is
/// and rebuilds the nodes above it for its type.
#[pyfunction]
#[pyo3(signature = (output, replace = None, **rebuild_kwds))]
pub fn clone_replace<'py>(
    output: Bound<'py, PyAny>,
    replace: Option<Bound<'py, PyAny>>,
    rebuild_kwds: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = output.py();
    let flag = |name: &str| -> PyResult<bool> {
        match rebuild_kwds
            .map(|k| k.get_item(name))
            .transpose()?
            .flatten()
        {
            Some(v) => v.is_truthy(),
            None => Ok(true),
        }
    };
    let (strict, copy_inputs_over) = (flag("rebuild_strict")?, flag("copy_inputs_over")?);
    let single = output.is_instance_of::<crate::graph::variable::PyVariable>();
    let outputs = as_list(&output)?;
    let (keys, values) = (PyList::empty(py), PyList::empty(py));
    if let Some(r) = replace.filter(|r| !r.is_none()) {
        let pairs = if r.is_instance_of::<PyDict>() {
            r.call_method0("items")?
        } else {
            r
        };
        for pair in pairs.try_iter()? {
            let (k, v): (Bound<'py, PyAny>, Bound<'py, PyAny>) = pair?.extract()?;
            let v = if strict {
                k.getattr("type")?.call_method1("filter_variable", (v,))?
            } else {
                v
            };
            keys.append(k)?;
            values.append(v)?;
        }
    }
    // The replacements' own graphs, cloned with their roots unless those
    // are copied over.
    let copy_roots = !copy_inputs_over;
    let values = if copy_roots {
        let equiv = clone_equiv(&PyList::empty(py), &values, (false, true), None, strict)?;
        PyList::new(
            py,
            values
                .iter()
                .map(|v| lookup(&equiv, &v))
                .collect::<PyResult<Vec<_>>>()?,
        )?
    } else {
        values
    };
    let memo = PyDict::new(py);
    for (k, v) in keys.iter().zip(values.iter()) {
        memo.set_item(k, v)?;
    }
    let equiv = clone_equiv(
        &PyList::empty(py),
        &outputs,
        (false, copy_roots),
        Some(memo),
        strict,
    )?;
    let cloned: Vec<Bound<'py, PyAny>> = outputs
        .iter()
        .map(|o| lookup(&equiv, &o))
        .collect::<PyResult<_>>()?;
    if single {
        return Ok(cloned
            .into_iter()
            .next()
            .unwrap_or_else(|| py.None().into_bound(py)));
    }
    let is_tuple = output.is_instance_of::<PyTuple>();
    Ok(if is_tuple {
        PyTuple::new(py, cloned)?.into_any()
    } else {
        PyList::new(py, cloned)?.into_any()
    })
}

/// Whether `variable` or one of its ancestors (not past `stop_at_vars`) is
/// one of `depends_on_vars`.
#[pyfunction]
#[pyo3(signature = (variable, depends_on_vars, stop_at_vars = None))]
pub fn variable_depends_on(
    variable: Bound<'_, PyAny>,
    depends_on_vars: Bound<'_, PyAny>,
    stop_at_vars: Option<Bound<'_, PyAny>>,
) -> PyResult<bool> {
    let mut s = Scratch::new();
    let v = s.import(&variable)?;
    let targets = s.import(&depends_on_vars)?;
    let stop = s.optional(stop_at_vars)?;
    Ok(v.iter()
        .any(|&v| dependence::variable_depends_on(&s.g, v, &targets, &stop)))
}

/// Whether the node `apply` is one of `depends_on` (a node or a list of
/// them) or computed from one of them.
#[pyfunction]
pub fn apply_depends_on(apply: Bound<'_, PyAny>, depends_on: Bound<'_, PyAny>) -> PyResult<bool> {
    let mut s = Scratch::new();
    let depends_on = match depends_on.is_instance_of::<crate::graph::apply::PyApply>() {
        true => vec![depends_on],
        false => depends_on.try_iter()?.collect::<PyResult<Vec<_>>>()?,
    };
    let mut node_of = |node: &Bound<'_, PyAny>| -> PyResult<NodeId> {
        s.import(&node.getattr("outputs")?)?;
        s.memo
            .node_id(node)
            .ok_or_else(|| pyo3::exceptions::PyTypeError::new_err("expected an Apply node"))
    };
    let node = node_of(&apply)?;
    let targets = depends_on
        .iter()
        .map(&mut node_of)
        .collect::<PyResult<Vec<_>>>()?;
    Ok(dependence::apply_depends_on(&s.g, node, &targets))
}

/// The variables closest to `outputs` from which everything depending on
/// `ancestors_to_include` is computed, those ancestors included.
#[pyfunction]
#[pyo3(signature = (outputs, ancestors_to_include = None))]
pub fn truncated_graph_inputs<'py>(
    outputs: Bound<'py, PyAny>,
    ancestors_to_include: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    let (s, outs, include) = Scratch::with_optional(&outputs, ancestors_to_include)?;
    let found = dependence::truncated_graph_inputs(&s.g, &outs, &include).py()?;
    s.vars(outputs.py(), &found)
}
