//! Thunks for ops written in Python: the VM calls back into the GIL, hands
//! `perform` NumPy views of the inputs (read-only; a copy for inputs the op
//! destroys) and one-element output cells, and checks what it stores with
//! the output type's `filter`. Ops that define `make_thunk` get the seeds'
//! `storage_map`/`compute_map` and their thunk is called as is.
//!
//! Under DebugMode (`debug`), the core hands each node copies of its
//! inputs: the op gets them writable (so a write it does not declare is
//! seen, as a `BadDestroyMap`, not refused by NumPy), runs `debug_perform`
//! when it has one, and an ndarray it stores for a tensor output is passed
//! on unfiltered, for the core to judge (`InvalidValueError`). An output
//! the core preallocated (DebugMode's `check_preallocated_output`) is in
//! its cell when `perform` starts, as in PyTensor.

use crate::convert::array::{array_from_tensor, tensor_from_array};
use crate::convert::host_value::PyHostValue;
use crate::errors::from_pyerr;
use crate::graph::types::PyTensorType;
use crate::ops::op::op_str;
use oxtensor_core::error::Result;
use oxtensor_core::kernels::alloc::Pool;
use oxtensor_core::ops::Outs;
use oxtensor_core::value::Value;
use oxtensor_core::vm::Thunk;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::sync::{Arc, Mutex};

/// A Python value for the VM: ndarrays become tensors, anything else a host value.
pub fn value_from_py(obj: &Bound<'_, PyAny>, ty: &Bound<'_, PyAny>) -> PyResult<Value> {
    if ty.is_instance_of::<PyTensorType>() {
        return Ok(Value::Tensor(tensor_from_array(obj)?));
    }
    if ty.is_instance_of::<crate::graph::types::PyScalarType>() {
        // A scalar is a 0-d tensor at run time.
        let arr = crate::convert::constant::numpy(obj.py())?.call_method1("asarray", (obj,))?;
        return Ok(Value::Tensor(tensor_from_array(&arr)?));
    }
    Ok(Value::Host(Arc::new(PyHostValue::new(
        obj.clone().unbind(),
    ))))
}

/// The Python object for a VM value.
pub fn value_to_py<'py>(
    py: Python<'py>,
    v: &Value,
    writeable: bool,
) -> PyResult<Bound<'py, PyAny>> {
    match v {
        Value::Tensor(t) => array_from_tensor(py, t, writeable),
        Value::Host(h) => match h.as_any().downcast_ref::<PyHostValue>() {
            Some(p) => Ok(p.object().bind(py).clone()),
            None => Err(PyTypeError::new_err(format!(
                "value {h:?} has no Python form"
            ))),
        },
    }
}

/// What both kinds of host thunk know about their node.
struct NodeInfo {
    node: Py<PyAny>,
    op: String,
    out_types: Vec<Py<PyAny>>,
    destroyed: Vec<bool>,
    /// DebugMode's form (see the module docs).
    debug: bool,
}

impl NodeInfo {
    fn new(node: &Bound<'_, PyAny>, debug: bool) -> PyResult<NodeInfo> {
        let op = node.getattr("op")?;
        let n_in = node.getattr("inputs")?.len()?;
        let mut destroyed = vec![false; n_in];
        if let Ok(dm) = op.getattr("destroy_map") {
            for ins in dm.cast::<PyDict>()?.values() {
                for i in ins.extract::<Vec<usize>>()? {
                    if let Some(d) = destroyed.get_mut(i) {
                        *d = true;
                    }
                }
            }
        }
        let out_types = node
            .getattr("outputs")?
            .try_iter()?
            .map(|o| Ok(o?.getattr("type")?.unbind()))
            .collect::<PyResult<_>>()?;
        Ok(NodeInfo {
            node: node.clone().unbind(),
            op: op_str(&op)?,
            out_types,
            destroyed,
            debug,
        })
    }

    /// A run of the node with the GIL held: `compute` gets the inputs as
    /// Python objects ([`Self::py_inputs`]) and fills `outputs`.
    fn run(
        &self,
        inputs: &[&Value],
        outputs: &mut [Option<Value>],
        compute: impl FnOnce(Bound<'_, PyList>, &mut [Option<Value>]) -> PyResult<()>,
    ) -> Result<()> {
        Python::attach(|py| compute(self.py_inputs(py, inputs)?, outputs)).map_err(from_pyerr)
    }

    /// The inputs as Python objects: views, or copies for destroyed inputs.
    fn py_inputs<'py>(&self, py: Python<'py>, inputs: &[&Value]) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for (v, &destroyed) in inputs.iter().zip(&self.destroyed) {
            // DebugMode's inputs are copies already, the op's to write to.
            let obj = value_to_py(py, v, self.debug)?;
            list.append(if destroyed && !self.debug {
                obj.call_method0("copy")?
            } else {
                obj
            })?;
        }
        Ok(list)
    }

    /// Filters what the op stored for output `i` and converts it.
    fn output(&self, py: Python<'_>, i: usize, stored: Bound<'_, PyAny>) -> PyResult<Value> {
        let ty = self.out_types[i].bind(py);
        if stored.is_none() {
            return Err(PyTypeError::new_err(format!(
                "{} did not store a value for output {i} (expected a value of type {})",
                self.op,
                ty.str()?
            )));
        }
        if self.debug && ty.is_instance_of::<PyTensorType>() {
            return Ok(match tensor_from_array(&stored) {
                Ok(t) => Value::Tensor(t),
                Err(_) => Value::Host(Arc::new(PyHostValue::new(stored.unbind()))),
            });
        }
        // Strict: an op must store exactly its output type (no silent casts).
        let kwargs = PyDict::new(py);
        kwargs.set_item("strict", true)?;
        let filtered = ty.call_method("filter", (&stored,), Some(&kwargs)).map_err(|e| {
            let got = describe_value(&stored);
            PyTypeError::new_err(format!(
                "{} stored a value of {got} for output {i}, which must have type {}: {}\nApply node: {}",
                self.op,
                ty.str().map(|s| s.to_string()).unwrap_or_default(),
                e.value(py),
                self.node.bind(py).str().map(|s| s.to_string()).unwrap_or_default()
            ))
        })?;
        value_from_py(&filtered, ty)
    }
}

fn describe_value(v: &Bound<'_, PyAny>) -> String {
    match (v.getattr("dtype"), v.getattr("shape")) {
        (Ok(d), Ok(s)) => format!(
            "dtype {} and shape {}",
            d.str().map(|x| x.to_string()).unwrap_or_default(),
            s.str().map(|x| x.to_string()).unwrap_or_default()
        ),
        _ => format!("type {}", crate::errors::type_name(v)),
    }
}

/// The method a Python op computes with: `debug_perform` in DebugMode
/// when the op has one, else `perform`.
pub(crate) fn perform_name(op: &Bound<'_, PyAny>, debug: bool) -> PyResult<&'static str> {
    Ok(if debug && op.hasattr("debug_perform")? {
        "debug_perform"
    } else {
        "perform"
    })
}

/// Calls `op.perform(node, inputs, output_storage)`.
pub struct PerformThunk {
    info: NodeInfo,
    perform: Py<PyAny>,
}

impl PerformThunk {
    /// The thunk of a node whose op defines `perform`.
    pub fn new(node: &Bound<'_, PyAny>, debug: bool) -> PyResult<PerformThunk> {
        let op = node.getattr("op")?;
        let perform = op.getattr(perform_name(&op, debug)?).map_err(|_| {
            PyTypeError::new_err(format!(
                "{} defines neither perform nor make_thunk, so it cannot run",
                op_str(&op).unwrap_or_default()
            ))
        })?;
        Ok(PerformThunk {
            info: NodeInfo::new(node, debug)?,
            perform: perform.unbind(),
        })
    }

    fn run_py(&self, args: Bound<'_, PyList>, outputs: &mut [Option<Value>]) -> PyResult<()> {
        let py = args.py();
        let cells = PyList::empty(py);
        for out in outputs.iter() {
            // Empty, unless DebugMode preallocated the output (its
            // `check_preallocated_output`): then writable, for the op to reuse.
            let held = match out {
                Some(v) => value_to_py(py, v, true)?,
                None => py.None().into_bound(py),
            };
            cells.append(PyList::new(py, [held])?)?;
        }
        self.perform
            .bind(py)
            .call1((self.info.node.bind(py), args, &cells))?;
        for (i, out) in outputs.iter_mut().enumerate() {
            *out = Some(self.info.output(py, i, cells.get_item(i)?.get_item(0)?)?);
        }
        Ok(())
    }
}

impl Thunk for PerformThunk {
    fn run(&self, inputs: &[&Value], outputs: &mut Outs, _pool: &mut Pool) -> Result<()> {
        self.info
            .run(inputs, outputs, |args, outputs| self.run_py(args, outputs))
    }

    fn is_host(&self) -> bool {
        true
    }
}

/// Storage cells and their compute-map flags.
type Cells = (Vec<Py<PyList>>, Vec<Py<PyList>>);

/// A thunk made by the op's own `make_thunk`, over one-element cells.
pub struct MakeThunk {
    info: NodeInfo,
    thunk: Py<PyAny>,
    input_cells: Vec<Py<PyList>>,
    output_cells: Vec<Py<PyList>>,
    computed: Vec<Py<PyList>>,
    /// The cells are shared state: one call at a time.
    lock: Mutex<()>,
}

impl MakeThunk {
    /// Calls `op.make_thunk(node, storage_map, compute_map, no_recycling)`.
    pub fn new(node: &Bound<'_, PyAny>, debug: bool) -> PyResult<MakeThunk> {
        let py = node.py();
        let (storage_map, compute_map) = (PyDict::new(py), PyDict::new(py));
        let cells = |vars: Bound<'_, PyAny>, computed: bool| -> PyResult<Cells> {
            let (mut store, mut comp) = (Vec::new(), Vec::new());
            for v in vars.try_iter()? {
                let v = v?;
                let cell = PyList::new(py, [py.None()])?;
                let flag = PyList::new(py, [computed])?;
                storage_map.set_item(&v, &cell)?;
                compute_map.set_item(&v, &flag)?;
                store.push(cell.unbind());
                comp.push(flag.unbind());
            }
            Ok((store, comp))
        };
        let (input_cells, _) = cells(node.getattr("inputs")?, true)?;
        let (output_cells, computed) = cells(node.getattr("outputs")?, false)?;
        let op = node.getattr("op")?;
        let thunk = op.call_method1(
            "make_thunk",
            (node, &storage_map, &compute_map, PyList::empty(py)),
        )?;
        if thunk
            .getattr("lazy")
            .is_ok_and(|l| l.is_truthy().unwrap_or(false))
        {
            return Err(pyo3::exceptions::PyNotImplementedError::new_err(format!(
                "not supported: lazy thunks from Python ops ({}); the VM runs lazy evaluation only for built-in ops",
                op_str(&op)?
            )));
        }
        Ok(MakeThunk {
            info: NodeInfo::new(node, debug)?,
            thunk: thunk.unbind(),
            input_cells,
            output_cells,
            computed,
            lock: Mutex::new(()),
        })
    }

    fn run_py(&self, args: Bound<'_, PyList>, outputs: &mut [Option<Value>]) -> PyResult<()> {
        let py = args.py();
        for (cell, v) in self.input_cells.iter().zip(args.iter()) {
            cell.bind(py).set_item(0, v)?;
        }
        for (cell, flag) in self.output_cells.iter().zip(&self.computed) {
            cell.bind(py).set_item(0, py.None())?;
            flag.bind(py).set_item(0, false)?;
        }
        self.thunk.bind(py).call0()?;
        for (i, out) in outputs.iter_mut().enumerate() {
            *out = Some(
                self.info
                    .output(py, i, self.output_cells[i].bind(py).get_item(0)?)?,
            );
            self.output_cells[i].bind(py).set_item(0, py.None())?;
        }
        for cell in &self.input_cells {
            cell.bind(py).set_item(0, py.None())?;
        }
        Ok(())
    }
}

impl Thunk for MakeThunk {
    fn run(&self, inputs: &[&Value], outputs: &mut Outs, _pool: &mut Pool) -> Result<()> {
        let _guard = self.lock.lock().map_err(|_| {
            oxtensor_core::Error::Value("a previous call of this thunk panicked".into())
        })?;
        self.info
            .run(inputs, outputs, |args, outputs| self.run_py(args, outputs))
    }

    fn is_host(&self) -> bool {
        true
    }
}

/// The thunk for a node of a Python op: its `make_thunk` when it overrides
/// the base one, else its `perform` (DebugMode's form when `debug`).
pub fn host_thunk(node: &Bound<'_, PyAny>, debug: bool) -> PyResult<Box<dyn Thunk>> {
    let py = node.py();
    let op = node.getattr("op")?;
    let base = py
        .get_type::<crate::ops::op::PyOp>()
        .getattr("make_thunk")?;
    if !op.get_type().getattr("make_thunk")?.is(&base) {
        return Ok(Box::new(MakeThunk::new(node, debug)?));
    }
    Ok(Box::new(PerformThunk::new(node, debug)?))
}
