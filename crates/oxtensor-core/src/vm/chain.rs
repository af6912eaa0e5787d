//! The nodes a link-time rewrite merged into one step, kept so that the
//! step can still run them one by one on a call its kernel does not take
//! (an unusual layout, say): the merged step then computes exactly what
//! the graph says, node by node, with each node's own thunk.

use super::program::{Src, Step};
use super::thunk::Thunk;
use crate::error::{Error, Result};
use crate::kernels::alloc::Pool;
use crate::value::Value;

/// Where a chained node reads an input.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Arg {
    /// The merged step's input at this position.
    Input(usize),
    /// The output of an earlier node of the chain.
    Node(usize),
}

/// Single-output nodes in the order they run; the last one's output is
/// the chain's.
pub(super) struct Chain {
    nodes: Vec<(Box<dyn Thunk>, Vec<Arg>)>,
}

impl Chain {
    /// Takes the thunks of `steps[k]` for `k` in `merged` (in running order,
    /// each with one output) and the inputs they read from outside: the
    /// merged step's inputs, in order of first use.
    pub(super) fn take(steps: &mut [Step], merged: &[usize]) -> (Chain, Vec<Src>) {
        let mut inputs: Vec<Src> = Vec::new();
        let mut nodes = Vec::with_capacity(merged.len());
        for (j, &k) in merged.iter().enumerate() {
            let args = steps[k].inputs.iter().map(|&src| {
                let inner = merged[..j]
                    .iter()
                    .position(|&m| Src::Slot(steps[m].outputs[0]) == src);
                inner.map(Arg::Node).unwrap_or_else(|| {
                    let at = inputs
                        .iter()
                        .position(|&s| s == src)
                        .unwrap_or(inputs.len());
                    if at == inputs.len() {
                        inputs.push(src);
                    }
                    Arg::Input(at)
                })
            });
            let args: Vec<Arg> = args.collect();
            let thunk = std::mem::replace(&mut steps[k].thunk, Box::new(Taken));
            nodes.push((thunk, args));
        }
        (Chain { nodes }, inputs)
    }

    /// Runs the nodes one by one on the merged step's inputs.
    pub(super) fn run(&self, inputs: &[&Value], pool: &mut Pool) -> Result<Value> {
        let mut values: Vec<Value> = Vec::with_capacity(self.nodes.len());
        for (thunk, args) in &self.nodes {
            let ins: Vec<&Value> = args
                .iter()
                .map(|&a| match a {
                    Arg::Input(i) => inputs[i],
                    Arg::Node(j) => &values[j],
                })
                .collect();
            let mut out = [None];
            thunk.run(&ins, &mut out, pool)?;
            let [Some(v)] = out else {
                return Err(Error::Value("a chained node set no output".into()));
            };
            values.push(v);
        }
        values
            .pop()
            .ok_or_else(|| Error::Value("an empty chain has no output".into()))
    }
}

/// What a step whose thunk moved into a [`Chain`] holds until the linker
/// drops it; running it is an error, never a wrong value.
struct Taken;

impl Thunk for Taken {
    fn run(&self, _: &[&Value], _: &mut [Option<Value>], _: &mut Pool) -> Result<()> {
        Err(Error::Value(
            "this step's thunk moved into a merged step".into(),
        ))
    }
}
