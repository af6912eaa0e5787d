//! Runs on demand, for programs with a lazy step (`IfElse`): from each
//! output, depth first, only the steps the chosen branches need.

use super::checked::{NodeView, StepChecker};
use super::program::{check_outputs, Program, Src, Step, Workspace};
use crate::error::{Error, Result};
use crate::kernels::alloc::Pool;
use crate::ops::ifelse::LazyStep;
use crate::value::Value;
use std::time::{Duration, Instant};

impl Program {
    /// Computes `slot` by running, depth first, only the steps it needs; a
    /// lazy step names the inputs it needs given those already computed.
    pub(super) fn demand(
        &self,
        slot: usize,
        inputs: &[Value],
        ws: &mut Workspace,
        times: &mut Option<Vec<Option<Duration>>>,
    ) -> Result<()> {
        if ws.storage[slot].is_some() {
            return Ok(());
        }
        let mut stack = vec![self.producer_of(slot)?];
        while let Some(&k) = stack.last() {
            let step = &self.steps[k];
            if step.outputs.iter().all(|&o| ws.storage[o].is_some()) {
                stack.pop();
                continue;
            }
            if let Some(p) = self.unmet_before(k, ws) {
                stack.push(p);
                continue;
            }
            let mut outs: Vec<Option<Value>> = vec![None; step.outputs.len()];
            let next = {
                let storage = &ws.storage;
                let ins: Vec<Option<&Value>> = step
                    .inputs
                    .iter()
                    .map(|&src| self.value(src, inputs, storage))
                    .collect();
                let t0 = Instant::now();
                let ran = match &self.checker {
                    // A checked strict step: run through the checker once
                    // its inputs are there (a lazy one, `IfElse`, runs as is).
                    Some(c) if !step.thunk.is_lazy() => checked_step(
                        c.as_ref(),
                        &step.view(k),
                        step,
                        &ins,
                        &mut outs,
                        &mut ws.pool,
                    ),
                    _ => step.thunk.run_lazy(&ins, &mut outs, &mut ws.pool),
                };
                if let Some(t) = times.as_mut().map(|t| &mut t[k]) {
                    *t = Some(t.unwrap_or_default() + t0.elapsed());
                }
                ran.and_then(|n| {
                    if n == LazyStep::Done {
                        check_outputs(&step.output_types, &outs).map(|()| n)
                    } else {
                        Ok(n)
                    }
                })
                .map_err(|e| e.at_node(self.node_context(k, step, inputs, storage)))?
            };
            match next {
                LazyStep::Done => {
                    for (&s, v) in step.outputs.iter().zip(outs) {
                        ws.storage[s] = v;
                    }
                    stack.pop();
                }
                LazyStep::Need(missing) => {
                    for i in missing {
                        if let Src::Slot(s) = step.inputs[i] {
                            if ws.storage[s].is_none() {
                                stack.push(self.producer_of(s)?);
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn producer_of(&self, slot: usize) -> Result<usize> {
        self.producer.get(&slot).copied().ok_or_else(|| {
            Error::Value(format!("slot {slot} has no value and no node computes it"))
        })
    }
}

/// A strict step of a lazy program under a checker: the missing inputs
/// first, then the checked run.
fn checked_step(
    checker: &dyn StepChecker,
    node: &NodeView<'_>,
    step: &Step,
    ins: &[Option<&Value>],
    outs: &mut [Option<Value>],
    pool: &mut Pool,
) -> Result<LazyStep> {
    let missing: Vec<usize> = (0..ins.len()).filter(|&i| ins[i].is_none()).collect();
    if !missing.is_empty() {
        return Ok(LazyStep::Need(missing));
    }
    let values: Vec<&Value> = ins.iter().flatten().copied().collect();
    checker
        .run(node, step.thunk.as_ref(), &values, outs, pool)
        .map(|()| LazyStep::Done)
}
