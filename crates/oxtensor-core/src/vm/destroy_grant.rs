//! Granting a destroyed input's buffer to the step that destroys it. A node
//! whose op declares a `destroy_map` (put there by the inplace phase, or a
//! user's graph with `accept_inplace`) was accepted by the graph's
//! `DestroyHandler`, which runs every other reader of the value, and of
//! its views, first; the Supervisor let it destroy only intermediates and
//! inputs marked mutable. So when the step runs, the value is dead to
//! everyone else, and the program offers it to the native thunk
//! (`kernels/alloc/granted.rs` says what the thunk checks before writing).
//!
//! One alias the graph cannot see is checked here: a caller passing the
//! same memory as two arguments. A destroyed argument that overlaps
//! another argument is not granted (PyTensor copies such a mutable input).

use super::program::{Src, Step};
use crate::compile::Supervisor;
use crate::graph::{FunctionGraph, NodeId};
use crate::kernels::alloc::buffers_overlap;
use crate::kernels::alloc::Pool;
use crate::value::Value;

/// The input node `n` destroys, if any (the first of its `destroy_map`).
pub(super) fn destroyed_input(fg: &FunctionGraph, n: NodeId) -> Option<usize> {
    let map = fg.graph().node(n).op.destroy_map();
    map.iter().find_map(|(_, ins)| ins.first().copied())
}

/// For each input of `fg`, whether a step destroys it and the caller
/// marked it mutable (the graph's `Supervisor` knows; without one, none).
pub(super) fn destroyed_mutable_inputs(fg: &FunctionGraph, steps: &[Step]) -> Vec<bool> {
    let mutable = fg
        .feature::<Supervisor>()
        .map(Supervisor::mutable)
        .unwrap_or(&[]);
    let mut out = vec![false; fg.inputs().len()];
    for st in steps {
        if let Some(&Src::Input(i)) = st.destroys.and_then(|d| st.run_inputs.get(d)) {
            out[i] = fg.inputs().get(i).is_some_and(|v| mutable.contains(v));
        }
    }
    out
}

/// Offers `step`'s destroyed input to its thunk through `pool`: a storage
/// slot's value, or an argument the caller marked mutable (`mutable`, per
/// input) sharing no memory with another argument.
pub(super) fn grant_destroyed(
    step: &Step,
    inputs: &[Value],
    storage: &[Option<Value>],
    mutable: &[bool],
    pool: &mut Pool,
) {
    let Some(src) = step.destroys.and_then(|i| step.run_inputs.get(i)) else {
        return;
    };
    let value = match *src {
        Src::Slot(s) => storage.get(s).and_then(Option::as_ref),
        Src::Input(i) if mutable.get(i).copied().unwrap_or(false) => {
            inputs.get(i).filter(|v| !overlaps_another(inputs, i, v))
        }
        Src::Input(_) => None,
        Src::Const(_) => None,
    };
    if let Some(Value::Tensor(t)) = value {
        pool.grant(t.clone());
    }
}

/// Whether argument `i` (`v`) shares memory with any other argument.
fn overlaps_another(inputs: &[Value], i: usize, v: &Value) -> bool {
    let Value::Tensor(t) = v else {
        return true;
    };
    inputs
        .iter()
        .enumerate()
        .any(|(j, other)| j != i && matches!(other, Value::Tensor(o) if buffers_overlap(t, o)))
}

#[cfg(test)]
mod tests {
    use super::super::program::{LinkOptions, Program};
    use crate::build;
    use crate::compile::Supervisor;
    use crate::dtype::DType;
    use crate::graph::{FunctionGraph, Graph, VarId};
    use crate::ops::elemwise::Elemwise;
    use crate::scalar::ScalarKind;
    use crate::tensor::Tensor;
    use crate::types::TensorType;
    use crate::value::Value;
    use std::collections::HashMap;
    use std::sync::Arc;

    fn add_inplace(g: &mut Graph, a: VarId, b: VarId) -> VarId {
        let op = Arc::new(Elemwise {
            scalar_op: ScalarKind::Add.into(),
            inplace_pattern: vec![(0, 0)],
        });
        g.apply_out(op, &[a, b]).unwrap()
    }

    fn link(fg: &FunctionGraph) -> Program {
        Program::link(fg, HashMap::new(), &LinkOptions::default()).unwrap()
    }

    fn vector(n: usize, v: f64) -> Value {
        Tensor::from_vec(vec![n], vec![v; n]).unwrap().into()
    }

    /// `exp(x) + y`, the sum overwriting `exp(x)`, over `n` elements: the
    /// output is `exp(x)`'s buffer, seen through the pool being left alone.
    #[test]
    fn an_intermediate_is_overwritten_in_place() {
        for n in [3usize, 5000] {
            let mut g = Graph::new();
            let ty = TensorType::with_ndim(DType::Float64, 1);
            let (x, y) = (g.input(ty.clone(), Some("x")), g.input(ty, Some("y")));
            let e = build::exp(&mut g, x).unwrap();
            let out = add_inplace(&mut g, e, y);
            let fg = FunctionGraph::new(g, vec![x, y], vec![out]).unwrap();
            let prog = link(&fg);
            let (xv, yv) = (vector(n, 0.0), vector(n, 2.0));
            let got = prog.run(vec![xv.clone(), yv]).unwrap();
            let t = got[0].tensor().unwrap();
            assert!(t.as_slice::<f64>().unwrap().iter().all(|&v| v == 3.0));
            // One buffer made (exp's), none freed: the sum went into it.
            assert!(prog.workspace.lock().unwrap().pool.is_empty());
            assert_eq!(xv.tensor().unwrap().as_slice::<f64>().unwrap()[0], 0.0);
        }
    }

    /// A destroyed argument is overwritten when the caller marked it
    /// mutable, the caller's is its only other handle and it shares no
    /// memory with another argument, and left alone otherwise.
    #[test]
    fn arguments_are_granted_unless_aliased() {
        let mut g = Graph::new();
        let ty = TensorType::with_ndim(DType::Float64, 1);
        let (x, y) = (g.input(ty.clone(), Some("x")), g.input(ty, Some("y")));
        let s = add_inplace(&mut g, x, y);
        let mut fg = FunctionGraph::new(g, vec![x, y], vec![s]).unwrap();
        // Not marked mutable: never written.
        let prog = link(&fg);
        let xv = vector(4, 1.0);
        let got = prog.run(vec![xv.clone(), vector(4, 2.0)]).unwrap();
        assert!(!got[0].tensor().unwrap().shares_buffer(xv.tensor().unwrap()));
        assert_eq!(xv.tensor().unwrap().as_slice::<f64>().unwrap(), &[1.0; 4]);
        let supervisor = Supervisor::new([]).with_mutable([x]);
        fg.attach_feature(Box::new(supervisor)).unwrap();
        let prog = link(&fg);
        let xv = vector(4, 1.0);
        let ptr = xv.tensor().unwrap().as_ptr();
        let got = prog.run(vec![xv, vector(4, 2.0)]).unwrap();
        assert_eq!(got[0].tensor().unwrap().as_ptr(), ptr);
        assert_eq!(
            got[0].tensor().unwrap().as_slice::<f64>().unwrap(),
            &[3.0; 4]
        );
        // Held twice by the caller: another handle, so not overwritten.
        let kept = vector(4, 1.0);
        let got = prog.run(vec![kept.clone(), vector(4, 2.0)]).unwrap();
        assert!(!got[0]
            .tensor()
            .unwrap()
            .shares_buffer(kept.tensor().unwrap()));
        assert_eq!(kept.tensor().unwrap().as_slice::<f64>().unwrap(), &[1.0; 4]);
        // The same memory as both arguments, through two buffers (as two
        // host arrays over one memory arrive).
        let base = Tensor::from_vec(vec![4], vec![1.0f64; 4]).unwrap();
        let ptr = std::ptr::NonNull::new(base.as_ptr() as *mut u8).unwrap();
        let owner: Box<dyn std::any::Any + Send + Sync> = Box::new(base.buffer().clone());
        // SAFETY: `owner` keeps `base`'s 32 bytes alive.
        let memory = unsafe { crate::tensor::Buffer::from_host(ptr, 32, true, owner) };
        let alias = Tensor::contiguous_in(DType::Float64, &[4], memory).unwrap();
        let got = prog.run(vec![alias.into(), base.clone().into()]).unwrap();
        assert!(!got[0].tensor().unwrap().shares_buffer(&base));
        assert_eq!(
            got[0].tensor().unwrap().as_slice::<f64>().unwrap(),
            &[2.0; 4]
        );
        assert_eq!(base.as_slice::<f64>().unwrap(), &[1.0; 4]);
    }
}
