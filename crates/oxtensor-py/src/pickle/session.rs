//! Which objects go into which `GraphPickle` while one pickling runs. The
//! first graph object pickled takes a snapshot of everything reachable from
//! it; an object reached later that a live snapshot already holds is pickled
//! as a reference into that snapshot, so each object is saved once and `is`
//! holds after loading. The session ends when its snapshots do, which is when
//! the pickler (or `deepcopy`) lets go of them: no hook into `pickle` needed.

use crate::graph::apply::PyApply;
use crate::graph::variable::PyVariable;
use crate::pickle::graph::GraphPickle;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple, PyWeakrefReference};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError, Weak};

/// Where the live `GraphPickle`s of the current pickling put each object
/// (keyed by address): `(snapshot number, position)`.
#[derive(Default)]
pub struct Session {
    snapshots: Vec<Py<PyWeakrefReference>>,
    index: HashMap<usize, (usize, usize)>,
}

/// The session of the pickling in progress; only `GraphPickle`s hold it strongly.
static SESSION: Mutex<Weak<Mutex<Session>>> = Mutex::new(Weak::new());

fn poisoned<T>(_: T) -> PyErr {
    PyRuntimeError::new_err("graph pickling session poisoned")
}

/// Locks a session without waiting: it is only held while the GIL is, so a
/// second locker is this thread re-entering (a `__del__` run by the GC
/// pickling a graph), which must fail rather than deadlock.
fn lock(session: &Mutex<Session>) -> PyResult<MutexGuard<'_, Session>> {
    session.try_lock().map_err(|e| match e {
        TryLockError::WouldBlock => {
            PyRuntimeError::new_err("graph pickling re-entered while a graph was being walked")
        }
        TryLockError::Poisoned(p) => poisoned(p),
    })
}

fn current_session() -> PyResult<Arc<Mutex<Session>>> {
    let mut slot = SESSION.lock().map_err(poisoned)?;
    if let Some(s) = slot.upgrade() {
        return Ok(s);
    }
    let s = Arc::new(Mutex::new(Session::default()));
    *slot = Arc::downgrade(&s);
    Ok(s)
}

/// An object's identity while it is alive: its address.
pub fn key(obj: &Bound<'_, PyAny>) -> usize {
    obj.as_ptr() as usize
}

impl Session {
    /// The live snapshot that holds `obj`, and its position there.
    fn find<'py>(
        &self,
        obj: &Bound<'py, PyAny>,
    ) -> PyResult<Option<(Bound<'py, GraphPickle>, usize)>> {
        let Some(&(n, i)) = self.index.get(&key(obj)) else {
            return Ok(None);
        };
        let Some(snap) = self.snapshots[n]
            .bind(obj.py())
            .upgrade_as::<GraphPickle>()?
        else {
            return Ok(None);
        };
        // A dead snapshot's address may be reused; a live one keeps its objects.
        let same = snap.borrow().get(obj.py(), i).is_ok_and(|o| o.is(obj));
        Ok(same.then_some((snap, i)))
    }

    /// Which snapshots are alive, once per walk (rather than a weak
    /// reference upgraded per object visited).
    fn live(&self, py: Python<'_>) -> Vec<bool> {
        self.snapshots
            .iter()
            .map(|w| w.bind(py).upgrade().is_some())
            .collect()
    }
}

/// The objects next to `obj`: a variable's owner, a node's inputs and outputs.
fn neighbours<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let py = obj.py();
    if let Ok(v) = obj.cast::<PyVariable>() {
        return Ok(v
            .borrow()
            .owner
            .iter()
            .map(|o| o.bind(py).clone())
            .collect());
    }
    if let Ok(n) = obj.cast::<PyApply>() {
        let n = n.borrow();
        return Ok(n
            .inputs_list(py)
            .iter()
            .chain(n.outputs_list(py).iter())
            .collect());
    }
    Ok(Vec::new())
}

/// Whether `obj` is a variable whose class defines its own `__reduce__`
/// (`NominalVariable`, interned: it must unpickle to the same object), so
/// a snapshot refers to it instead of holding it.
fn pickles_itself(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    if !obj.is_instance_of::<PyVariable>() {
        return Ok(false);
    }
    let base = obj.py().get_type::<PyVariable>().getattr("__reduce__")?;
    Ok(!obj.get_type().getattr("__reduce__")?.is(&base))
}

/// `start` and everything reachable from it that no live snapshot holds yet.
fn walk<'py>(start: &Bound<'py, PyAny>, session: &Session) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let live = session.live(start.py());
    let elsewhere =
        |o: &Bound<'_, PyAny>| session.index.get(&key(o)).is_some_and(|&(n, _)| live[n]);
    let mut seen = HashSet::new();
    let mut order = Vec::new();
    let mut stack = vec![start.clone()];
    while let Some(obj) = stack.pop() {
        if !seen.insert(key(&obj)) || (!obj.is(start) && (elsewhere(&obj) || pickles_itself(&obj)?))
        {
            continue;
        }
        stack.extend(neighbours(&obj)?);
        order.push(obj);
    }
    Ok(order)
}

/// `operator.getitem(snapshot, k)`: how a graph object is pickled.
pub fn reduce<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
    let py = obj.py();
    let session = current_session()?;
    let found = lock(&session)?.find(obj)?;
    let (snap, i) = match found {
        Some(hit) => hit,
        None => (snapshot(obj, session)?, 0),
    };
    let getitem = py.import("operator")?.getattr("getitem")?;
    PyTuple::new(
        py,
        [
            getitem,
            PyTuple::new(py, [snap.into_any(), i.into_pyobject(py)?.into_any()])?.into_any(),
        ],
    )
}

/// A snapshot of `start`'s graph, registered in the session; `start` is
/// its object 0.
fn snapshot<'py>(
    start: &Bound<'py, PyAny>,
    session: Arc<Mutex<Session>>,
) -> PyResult<Bound<'py, GraphPickle>> {
    let py = start.py();
    let found = walk(start, &*lock(&session)?)?;
    let objects = PyList::new(py, found)?;
    let snap = Bound::new(py, GraphPickle::new_with(objects, Some(session.clone())))?;
    let weak = PyWeakrefReference::new(&snap)?.unbind();
    let mut guard = lock(&session)?;
    let n = guard.snapshots.len();
    guard.snapshots.push(weak);
    for (k, i) in snap.borrow().positions() {
        guard.index.insert(*k, (n, *i));
    }
    Ok(snap)
}
