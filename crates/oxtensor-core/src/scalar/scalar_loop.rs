//! `ScalarLoop`: a scalar op that repeats a scalar step. Its inputs are
//! `n_steps`, the initial states and constants; each step computes the new
//! states (and, for a while loop, a bool `until`) from the states and
//! constants; the outputs are the final states (and whether the last step
//! said `until`). The step is a [`Composite`] (its inputs the states, then
//! the constants; its outputs the updates, then `until`), so loops share
//! the composite's program, identity and node-by-node evaluation; the loop
//! itself runs in `kernels/fused/scalar_loop.rs`. Mirrors `ScalarLoop` in
//! `pytensor/scalar/loop.py`; the graph views are in
//! `ops/scalar_loop_graph.rs`.

use super::composite::{Composite, Operand};
use crate::dtype::DType;
use crate::error::{Error, Result};
use smallvec::SmallVec;
use std::borrow::Cow;
use std::fmt;
use std::hash::{Hash, Hasher};

/// A loop of a scalar step, `n_steps` times or until a condition holds.
#[derive(Clone)]
pub struct ScalarLoop {
    step: Composite,
    n_update: usize,
    is_while: bool,
    name: String,
}

impl ScalarLoop {
    /// The loop of `step`, whose first `n_update` inputs are the states it
    /// updates (its first `n_update` outputs, in order), the rest constants;
    /// with `is_while`, its last output is the bool `until`.
    pub fn new(step: Composite, n_update: usize, is_while: bool, name: &str) -> Result<Self> {
        let want_out = n_update + usize::from(is_while);
        if step.nout() != want_out || step.nin() < n_update {
            return Err(Error::Value(format!(
                "An update must be given for each init variable: {n_update} states, \
                 {} inputs and {} outputs in the step {step}",
                step.nin(),
                step.nout()
            )));
        }
        let outs = step.output_dtypes();
        if is_while && outs[n_update] != DType::Bool {
            return Err(Error::Type(format!(
                "Until condition must be boolean, got {}",
                outs[n_update]
            )));
        }
        for (i, (init, update)) in step.input_dtypes().iter().zip(&outs).enumerate() {
            if i < n_update && init != update {
                return Err(Error::Type(format!(
                    "Init and update types must be the same: state {i} is {init} \
                     and its update {update}"
                )));
            }
        }
        Ok(ScalarLoop {
            step,
            n_update,
            is_while,
            name: name.to_string(),
        })
    }

    /// The step: states and constants in, updates (and `until`) out.
    pub fn step(&self) -> &Composite {
        &self.step
    }

    /// Number of states.
    pub fn n_update(&self) -> usize {
        self.n_update
    }

    /// Whether the loop stops at `until`.
    pub fn is_while(&self) -> bool {
        self.is_while
    }

    /// The name given at construction (`ScalarLoop` by default), its `str`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of inputs: `n_steps`, the states, the constants.
    pub fn nin(&self) -> usize {
        self.step.nin() + 1
    }

    /// Number of outputs: the states and, for a while loop, `until`.
    pub fn nout(&self) -> usize {
        self.step.nout()
    }

    /// The output dtypes for the loop's own input dtypes.
    pub fn output_dtypes(&self) -> SmallVec<[DType; 2]> {
        self.step.output_dtypes()
    }

    /// This loop for inputs of `dtypes` (`n_steps` first): itself when they
    /// are its own, else the loop with its step rebuilt for them (as
    /// PyTensor's `make_node` rebuilds it), which must keep each state's
    /// dtype through its update.
    pub fn for_dtypes(&self, dtypes: &[DType]) -> Result<Cow<'_, ScalarLoop>> {
        let Some((&n_steps, rest)) = dtypes.split_first().filter(|_| dtypes.len() == self.nin())
        else {
            return Err(Error::Type(format!(
                "Wrong number of inputs for {}.make_node (got {}, expected {})",
                self.name,
                dtypes.len(),
                self.nin()
            )));
        };
        // PyTensor's test is the dtype's name: signed integers only.
        if !n_steps.name().starts_with("int") {
            return Err(Error::Type(format!(
                "The first variable of ScalarLoop (n_steps) must be of integer type. Got {n_steps}"
            )));
        }
        if rest == self.step.input_dtypes() {
            return Ok(Cow::Borrowed(self));
        }
        let mut b = Composite::builder(rest);
        let args: Vec<Operand> = (0..rest.len()).map(Operand::Input).collect();
        let outs = b.inline(&self.step, &args)?;
        let step = b.finish(&outs)?;
        Ok(Cow::Owned(ScalarLoop::new(
            step,
            self.n_update,
            self.is_while,
            &self.name,
        )?))
    }

    /// The output dtypes for inputs of `dtypes` (`n_steps` first).
    pub fn output_dtypes_for(&self, dtypes: &[DType]) -> Result<SmallVec<[DType; 2]>> {
        Ok(self.for_dtypes(dtypes)?.output_dtypes())
    }
}

/// Loops are equal when their steps are (PyTensor compares their code,
/// which the name is not part of).
impl PartialEq for ScalarLoop {
    fn eq(&self, other: &ScalarLoop) -> bool {
        self.n_update == other.n_update
            && self.is_while == other.is_while
            && self.step == other.step
    }
}

impl Eq for ScalarLoop {}

impl Hash for ScalarLoop {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.n_update.hash(state);
        self.is_while.hash(state);
        self.step.hash(state);
    }
}

impl fmt::Debug for ScalarLoop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}]", self.name, self.step)
    }
}

impl fmt::Display for ScalarLoop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType::*;
    use crate::scalar::ScalarKind as K;

    /// `x + c` over (`x`, `c`), and optionally `until = x + c >= c`.
    fn counting(x: DType, c: DType, until: bool) -> Result<ScalarLoop> {
        let mut b = Composite::builder(&[x, c]);
        let s = b.push(K::Add.into(), &[Operand::Input(0), Operand::Input(1)])?;
        let mut outs = vec![s];
        if until {
            outs.push(b.push(K::Ge.into(), &[s, Operand::Input(1)])?);
        }
        ScalarLoop::new(b.finish(&outs)?, 1, until, "ScalarLoop")
    }

    #[test]
    fn types_are_checked_and_rebuilt() {
        let l = counting(Float64, Float64, true).unwrap();
        assert_eq!((l.nin(), l.nout()), (3, 2));
        assert_eq!(l.output_dtypes().as_slice(), &[Float64, Bool]);
        let err = counting(Float32, Float64, false).unwrap_err().to_string();
        assert!(
            err.contains("Init and update types must be the same"),
            "{err}"
        );
        let same = l.for_dtypes(&[Int64, Float64, Float64]).unwrap();
        assert!(matches!(same, Cow::Borrowed(_)));
        let f32s = l.output_dtypes_for(&[Int32, Float32, Float32]).unwrap();
        assert_eq!(f32s.as_slice(), &[Float32, Bool]);
        let err = l.for_dtypes(&[Int64, Float32, Float64]).unwrap_err();
        assert!(err.to_string().contains("Init and update types"), "{err}");
        let err = l.for_dtypes(&[Float64, Float64, Float64]).unwrap_err();
        assert!(err
            .to_string()
            .contains("must be of integer type. Got float64"));
        assert!(l.for_dtypes(&[UInt8, Float64, Float64]).is_err());
    }

    #[test]
    fn until_must_be_bool_and_names_are_not_identity() {
        let mut b = Composite::builder(&[Float64]);
        let s = b.push(K::Exp.into(), &[Operand::Input(0)]).unwrap();
        let step = b.finish(&[s, s]).unwrap();
        let err = ScalarLoop::new(step, 1, true, "L").unwrap_err();
        assert!(err.to_string().contains("Until condition must be boolean"));
        let a = counting(Float64, Float64, false).unwrap();
        let mut b = a.clone();
        b.name = "other".into();
        assert_eq!(a, b);
        assert_eq!(b.to_string(), "other");
    }
}
