//! Granting a destroyed input's buffer to the step that destroys it. A node
//! whose op declares a `destroy_map` (put there by the inplace phase, or a
//! user's graph with `accept_inplace`) was accepted by the graph's
//! `DestroyHandler`, which runs every other reader of the value, and of
//! its views, first; the Supervisor let it destroy only intermediates and
//! inputs marked mutable. So when the step runs, the value is dead to
//! everyone else, and the program offers it to the native thunk
//! (`kernels/alloc/granted.rs` says what the thunk checks before writing).
//!
//! A node may destroy several inputs, one per output (a fused
//! multi-output `Composite`): each is granted, and each output goes into
//! its own input's buffer.
//!
//! A destroyed value may be a view of a mutable argument (`cumsum(x)` of a
//! matrix destroys `x.reshape(-1)`), or the result of an earlier destroyer
//! written into it: its buffer is then held by the argument as well as by
//! its own slot. Both handles are the program's, and nothing reads the
//! argument after the destroyer, so the grant counts the argument's handle
//! as one of the program's ([`Pool::grant_held`]); any other holder still
//! keeps the buffer from being written.
//!
//! One alias the graph cannot see is checked here: a caller passing the
//! same memory as two arguments. A destroyed argument that overlaps
//! another argument is not granted (PyTensor copies such a mutable input).

use super::program::{Src, Step};
use crate::compile::Supervisor;
use crate::graph::{FunctionGraph, NodeId, VarId, VarKind};
use crate::kernels::alloc::buffers_overlap;
use crate::kernels::alloc::Pool;
use crate::value::Value;
use std::collections::HashMap;

/// An input a step destroys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Destroyed {
    /// Its position among the node's inputs.
    pub(super) input: usize,
    /// The function input whose memory it is, through views or earlier
    /// destroyers, when it is a computed value over one (`x.reshape(-1)`).
    pub(super) root: Option<usize>,
}

/// The inputs node `n` destroys: for each output in its `destroy_map`,
/// the first input listed (the one its output can be written into).
/// `roots` remembers the chains already followed, for the next nodes.
pub(super) fn destroyed_inputs(
    fg: &FunctionGraph,
    n: NodeId,
    roots: &mut ArgumentRoots,
) -> Vec<Destroyed> {
    let node = fg.graph().node(n);
    let map = node.op.destroy_map();
    map.iter()
        .filter_map(|(_, ins)| ins.first().copied())
        .filter_map(|i| {
            let v = *node.inputs.get(i)?;
            Some(Destroyed {
                input: i,
                root: roots.under(fg, v),
            })
        })
        .collect()
}

/// For computed values, the function input whose memory each shares:
/// followed up each output's `view_map` or `destroy_map` of a single
/// input, both of which hand the input's buffer on. Remembered per
/// variable, so a chain of n destroyers, each over the last, costs n
/// steps in all rather than n per destroyer.
#[derive(Default)]
pub(super) struct ArgumentRoots {
    known: HashMap<VarId, Option<usize>>,
}

impl ArgumentRoots {
    /// `None`: `v` is an input itself, or its chain reaches a value
    /// computed afresh or a constant.
    pub(super) fn under(&mut self, fg: &FunctionGraph, v: VarId) -> Option<usize> {
        let g = fg.graph();
        let VarKind::Output { .. } = g.var(v).kind else {
            return None;
        };
        let mut path = Vec::new();
        let mut at = v;
        let root = loop {
            if let Some(&known) = self.known.get(&at) {
                break known;
            }
            let VarKind::Output { node, index } = g.var(at).kind else {
                break fg.inputs().iter().position(|&x| x == at);
            };
            path.push(at);
            let n = g.node(node);
            let (views, destroys) = (n.op.view_map(), n.op.destroy_map());
            let single = views
                .iter()
                .chain(&destroys)
                .find(|(o, _)| *o == index)
                .and_then(|(_, ins)| match ins[..] {
                    [i] => n.inputs.get(i).copied(),
                    _ => None,
                });
            match single {
                Some(input) => at = input,
                None => break None,
            }
        };
        path.into_iter().for_each(|p| {
            self.known.insert(p, root);
        });
        root
    }
}

/// For each input of `fg`, whether a step destroys it, directly or through
/// views, and the caller marked it mutable (the graph's `Supervisor` knows;
/// without one, none): a host then passes its writable memory.
pub(super) fn destroyed_mutable_inputs(fg: &FunctionGraph, steps: &[Step]) -> Vec<bool> {
    let mutable = fg
        .feature::<Supervisor>()
        .map(Supervisor::mutable)
        .unwrap_or(&[]);
    let mut out = vec![false; fg.inputs().len()];
    for st in steps {
        for d in &st.destroys {
            let direct = match st.run_inputs.get(d.input) {
                Some(&Src::Input(i)) => Some(i),
                _ => None,
            };
            for i in direct.into_iter().chain(d.root) {
                out[i] = fg.inputs().get(i).is_some_and(|v| mutable.contains(v));
            }
        }
    }
    out
}

/// Offers each input `step` destroys to its thunk through `pool`: a
/// storage slot's value (held also by the mutable argument it views, if
/// it views one), or an argument the caller marked mutable (`mutable`, per
/// input) sharing no memory with another argument.
pub(super) fn grant_destroyed(
    step: &Step,
    inputs: &[Value],
    storage: &[Option<Value>],
    mutable: &[bool],
    pool: &mut Pool,
) {
    for d in &step.destroys {
        let Some(src) = step.run_inputs.get(d.input) else {
            continue;
        };
        let value = match *src {
            Src::Slot(s) => storage.get(s).and_then(Option::as_ref),
            Src::Input(i) => granted_argument(inputs, i, mutable),
            Src::Const(_) => None,
        };
        if let Some(Value::Tensor(t)) = value {
            let holders = 1 + usize::from(viewed_argument_holds(d, t, inputs, mutable));
            pool.grant_held(t.clone(), holders);
        }
    }
}

/// Argument `i`, if the caller marked it mutable and it shares no memory
/// with another argument.
fn granted_argument<'a>(inputs: &'a [Value], i: usize, mutable: &[bool]) -> Option<&'a Value> {
    let allowed = mutable.get(i).copied().unwrap_or(false);
    inputs
        .get(i)
        .filter(|v| allowed && !overlaps_another(inputs, i, v))
}

/// Whether `t`, a computed value over the argument `d.root`, has that
/// argument's very buffer, the argument being one the caller marked
/// mutable and sharing no memory with another: the argument's handle is
/// then the program's too (nobody reads it after the destroyer, which the
/// `DestroyHandler` ordered last), not an alias to protect.
fn viewed_argument_holds(
    d: &Destroyed,
    t: &crate::tensor::Tensor,
    inputs: &[Value],
    mutable: &[bool],
) -> bool {
    let Some(r) = d.root else {
        return false;
    };
    matches!(
        granted_argument(inputs, r, mutable),
        Some(Value::Tensor(a)) if std::sync::Arc::ptr_eq(a.buffer(), t.buffer())
    )
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
    use crate::graph::testing::graph_with;
    use crate::graph::{FunctionGraph, Graph, VarId};
    use crate::kernels::reduce::CumMode;
    use crate::ops::cumulative::CumOp;
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

    /// A new graph with float64 vector inputs `x` and `y`.
    fn vectors_xy() -> (Graph, VarId, VarId) {
        let mut g = Graph::new();
        let ty = TensorType::with_ndim(DType::Float64, 1);
        let (x, y) = (g.input(ty.clone(), Some("x")), g.input(ty, Some("y")));
        (g, x, y)
    }

    /// Attaches a `Supervisor` protecting nothing, with `mutable` marked so.
    fn mark_mutable(fg: &mut FunctionGraph, mutable: Vec<VarId>) {
        let supervisor = Supervisor::new([]).with_mutable(mutable);
        fg.attach_feature(Box::new(supervisor)).unwrap();
    }

    fn link(fg: &FunctionGraph) -> Program {
        Program::link(fg, HashMap::new(), &LinkOptions::default()).unwrap()
    }

    fn vector(n: usize, v: f64) -> Value {
        Tensor::from_vec(vec![n], vec![v; n]).unwrap().into()
    }

    /// A chain of destroyers, each over the last, reaches the argument
    /// under it; a value computed afresh has none, and a remembered chain
    /// answers the same the second time.
    #[test]
    fn destroyer_chains_lead_to_their_argument() {
        let (mut g, x, y) = vectors_xy();
        let s1 = add_inplace(&mut g, x, y);
        let s2 = add_inplace(&mut g, s1, y);
        let s3 = add_inplace(&mut g, s2, y);
        let e = build::exp(&mut g, y).unwrap();
        let fg = FunctionGraph::new(g, vec![x, y], vec![s3, e]).unwrap();
        let mut roots = super::ArgumentRoots::default();
        assert_eq!(roots.under(&fg, x), None);
        assert_eq!(roots.under(&fg, s2), Some(0));
        assert_eq!(roots.under(&fg, s1), Some(0));
        assert_eq!(roots.under(&fg, s3), Some(0));
        assert_eq!(roots.under(&fg, e), None);
        let node = fg.graph().var(s3).owner().unwrap();
        let got = super::destroyed_inputs(&fg, node, &mut roots);
        assert_eq!(
            got,
            vec![super::Destroyed {
                input: 0,
                root: Some(0)
            }]
        );
    }

    /// `exp(x) + y`, the sum overwriting `exp(x)`, over `n` elements: the
    /// output is `exp(x)`'s buffer, seen through the pool being left alone.
    #[test]
    fn an_intermediate_is_overwritten_in_place() {
        for n in [3usize, 5000] {
            let (mut g, x, y) = vectors_xy();
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
        let (mut g, x, y) = vectors_xy();
        let s = add_inplace(&mut g, x, y);
        let mut fg = FunctionGraph::new(g, vec![x, y], vec![s]).unwrap();
        // Not marked mutable: never written.
        let prog = link(&fg);
        let xv = vector(4, 1.0);
        let got = prog.run(vec![xv.clone(), vector(4, 2.0)]).unwrap();
        assert!(!got[0].tensor().unwrap().shares_buffer(xv.tensor().unwrap()));
        assert_eq!(xv.tensor().unwrap().as_slice::<f64>().unwrap(), &[1.0; 4]);
        mark_mutable(&mut fg, vec![x]);
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

    /// `x` (a matrix) and `cumsum(x.flatten())` destroying the flat view,
    /// linked with `x` mutable or not.
    fn flat_cumsum(mutable: bool) -> (Program, super::Destroyed) {
        let (mut g, [x]) = graph_with([("x", DType::Float64, 2)]);
        let flat = build::numpy_index::flatten(&mut g, x).unwrap();
        let op = CumOp {
            inplace: true,
            ..CumOp::new(0, CumMode::Add, 1).unwrap()
        };
        let out = g.apply_out(Arc::new(op), &[flat]).unwrap();
        let mut fg = FunctionGraph::new(g, vec![x], vec![out]).unwrap();
        mark_mutable(&mut fg, if mutable { vec![x] } else { vec![] });
        let node = fg.graph().var(out).owner().unwrap();
        let [d] = super::destroyed_inputs(&fg, node, &mut Default::default())[..] else {
            panic!("one destroyed input")
        };
        (link(&fg), d)
    }

    fn matrix() -> Value {
        Tensor::from_vec(vec![2, 3], vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0])
            .unwrap()
            .into()
    }

    /// The running sum of a mutable argument's flat view goes into the
    /// argument, which the view's slot and the argument both hold; a
    /// protected argument, or one the caller holds twice, is left alone.
    #[test]
    fn a_view_of_a_mutable_argument_is_granted() {
        let want = [1.0, 3.0, 6.0, 10.0, 15.0, 21.0];
        let (prog, d) = flat_cumsum(true);
        assert_eq!(d.root, Some(0), "the flat view is over argument 0");
        assert!(prog.destroys_input(0));
        let xv = matrix();
        let ptr = xv.tensor().unwrap().as_ptr();
        let got = prog.run(vec![xv]).unwrap();
        let t = got[0].tensor().unwrap();
        assert_eq!((t.as_ptr(), t.as_slice::<f64>().unwrap()), (ptr, &want[..]));
        let kept = matrix();
        let got = prog.run(vec![kept.clone()]).unwrap();
        assert!(!got[0]
            .tensor()
            .unwrap()
            .shares_buffer(kept.tensor().unwrap()));
        assert_eq!(kept.tensor().unwrap().as_slice::<f64>().unwrap()[5], 6.0);
        let (prog, _) = flat_cumsum(false);
        assert!(!prog.destroys_input(0));
        let xv = matrix();
        let got = prog.run(vec![xv.clone()]).unwrap();
        assert_eq!(got[0].tensor().unwrap().as_slice::<f64>().unwrap(), &want);
        assert!(!got[0].tensor().unwrap().shares_buffer(xv.tensor().unwrap()));
        assert_eq!(xv.tensor().unwrap().as_slice::<f64>().unwrap()[5], 6.0);
    }

    /// `(x + y) + y`, both sums inplace on mutable `x`: the second
    /// destroys the first's result, which is `x`'s buffer, and writes
    /// there too (the chain follows destroy maps as well as views).
    #[test]
    fn a_destroyer_of_a_destroyed_argument_is_granted() {
        let (mut g, x, y) = vectors_xy();
        let once = add_inplace(&mut g, x, y);
        let twice = add_inplace(&mut g, once, y);
        let mut fg = FunctionGraph::new(g, vec![x, y], vec![twice]).unwrap();
        mark_mutable(&mut fg, vec![x]);
        let prog = link(&fg);
        let xv = vector(5000, 1.0);
        let ptr = xv.tensor().unwrap().as_ptr();
        let got = prog.run(vec![xv, vector(5000, 2.0)]).unwrap();
        let t = got[0].tensor().unwrap();
        assert_eq!(t.as_ptr(), ptr);
        assert!(t.as_slice::<f64>().unwrap().iter().all(|&v| v == 5.0));
    }
}
