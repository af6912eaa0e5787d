//! The loop behind `ScalarLoop` (`Elemwise(ScalarLoop)` and a loop's
//! scalar node): each element repeats the step `n_steps` times (its own
//! count, broadcast like any input), a while loop stopping early where
//! `until` holds.
//!
//! Every element runs at once, a step being the step composite's nodes
//! over arrays (`interpret.rs`, the same kernels the unfused nodes use):
//! the states of the elements still running are packed into short arrays,
//! and an element that finishes leaves them, its states written to the
//! outputs. So a step costs what its running elements cost, and an element
//! that is done is never computed again (its values could overflow or warn).

use super::interpret;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::alloc::Pool;
use crate::kernels::elemwise::{cast::cast, output_shape};
use crate::scalar::scalar_loop::ScalarLoop;
use crate::tensor::{layout, Tensor};
use smallvec::SmallVec;

/// `l` over `inputs` (`n_steps`, the initial states, the constants; their
/// static broadcastable flags `bcast`): the final states and, for a while
/// loop, whether each element stopped at `until`.
pub fn run(
    l: &ScalarLoop,
    inputs: &[&Tensor],
    bcast: &[Vec<bool>],
    pool: &mut Pool,
) -> Result<SmallVec<[Tensor; 2]>> {
    let dtypes: Vec<DType> = inputs.iter().map(|t| t.dtype()).collect();
    let l = l.for_dtypes(&dtypes)?;
    let shape = output_shape(inputs, bcast)?;
    let size = layout::size(&shape)?;
    let flat = inputs
        .iter()
        .map(|t| Flat::broadcast(t, &shape))
        .collect::<Result<Vec<_>>>()?;
    let n_steps = counts(&flat[0], size)?;
    if !l.is_while() && n_steps.iter().any(|&n| n < 0) {
        return Err(Error::Value(
            "ScalarLoop does not have a termination condition: n_steps is negative".into(),
        ));
    }
    let n_update = l.n_update();
    let mut states: Vec<Flat> = flat[1..=n_update].to_vec();
    // Where no step runs, a while loop counts as done (PyTensor's rule).
    let mut done = Flat {
        dtype: DType::Bool,
        bytes: vec![1; size],
    };
    let mut active: Vec<usize> = (0..size).filter(|&i| n_steps[i] > 0).collect();
    let mut carry: Vec<Flat> = flat[1..].iter().map(|f| f.gather(&active)).collect();
    let mut step = 0i64;
    while !active.is_empty() {
        let args = carry.iter().map(Flat::tensor).collect::<Result<Vec<_>>>()?;
        let refs: SmallVec<[&Tensor; 4]> = args.iter().collect();
        let flags = vec![vec![false]; refs.len()];
        let new = interpret::composite(l.step(), &refs, &flags, pool)?;
        drop(refs);
        args.into_iter().for_each(|t| pool.recycle(t));
        step += 1;
        for (k, t) in new.iter().enumerate() {
            let f = Flat::of(t)?.repeated(active.len());
            match k < n_update {
                true => carry[k] = f,
                false => done_step(&mut done, &f, &active),
            }
        }
        new.into_iter().for_each(|t| pool.recycle(t));
        let until = |j: usize| l.is_while() && done.bytes[active[j]] != 0;
        let finished: Vec<bool> = (0..active.len())
            .map(|j| step >= n_steps[active[j]] || until(j))
            .collect();
        if !finished.contains(&true) {
            continue;
        }
        let keep: Vec<usize> = (0..active.len()).filter(|&j| !finished[j]).collect();
        for (j, &i) in active.iter().enumerate().filter(|&(j, _)| finished[j]) {
            for (out, c) in states.iter_mut().zip(&carry) {
                out.put(i, c, j);
            }
        }
        active = keep.iter().map(|&j| active[j]).collect();
        carry = carry.iter().map(|f| f.gather(&keep)).collect();
    }
    let mut outs: SmallVec<[Tensor; 2]> = states
        .iter()
        .map(|f| f.shaped(&shape))
        .collect::<Result<_>>()?;
    if l.is_while() {
        outs.push(done.shaped(&shape)?);
    }
    Ok(outs)
}

/// The `until` of this step, written for the running elements.
fn done_step(done: &mut Flat, until: &Flat, active: &[usize]) {
    for (j, &i) in active.iter().enumerate() {
        done.bytes[i] = u8::from(until.bytes[j] != 0);
    }
}

/// Each element's step count, as int64.
fn counts(n: &Flat, size: usize) -> Result<Vec<i64>> {
    let t = cast(&n.tensor()?, DType::Int64)?;
    let v = t
        .as_slice::<i64>()
        .ok_or_else(|| Error::Value("ScalarLoop: n_steps did not convert to int64".into()))?;
    debug_assert_eq!(v.len(), size);
    Ok(v.to_vec())
}

/// A value as its elements' bytes, in C order, one after another.
#[derive(Clone)]
struct Flat {
    dtype: DType,
    bytes: Vec<u8>,
}

impl Flat {
    /// `t` broadcast to `shape` (equal rank; its length-1 axes repeat).
    fn broadcast(t: &Tensor, shape: &[usize]) -> Result<Flat> {
        let strides: Vec<isize> = t
            .shape()
            .iter()
            .zip(t.strides())
            .zip(shape)
            .map(|((&n, &s), &want)| if n == want { s } else { 0 })
            .collect();
        Flat::of(&t.view(shape, &strides, t.offset())?)
    }

    fn of(t: &Tensor) -> Result<Flat> {
        Ok(Flat {
            dtype: t.dtype(),
            bytes: t.to_c_bytes()?,
        })
    }

    /// A single element (a step output that is a constant) repeated `n`
    /// times; any other length as it is.
    fn repeated(self, n: usize) -> Flat {
        match self.bytes.len() == self.size() {
            true => Flat {
                bytes: self.bytes.repeat(n),
                dtype: self.dtype,
            },
            false => self,
        }
    }

    fn size(&self) -> usize {
        self.dtype.itemsize()
    }

    /// The elements at `at`, in that order.
    fn gather(&self, at: &[usize]) -> Flat {
        let s = self.size();
        let mut bytes = Vec::with_capacity(at.len() * s);
        for &i in at {
            bytes.extend_from_slice(&self.bytes[i * s..(i + 1) * s]);
        }
        Flat {
            dtype: self.dtype,
            bytes,
        }
    }

    /// Element `i` set to `from`'s element `j`.
    fn put(&mut self, i: usize, from: &Flat, j: usize) {
        let s = self.size();
        self.bytes[i * s..(i + 1) * s].copy_from_slice(&from.bytes[j * s..(j + 1) * s]);
    }

    /// A vector of the elements.
    fn tensor(&self) -> Result<Tensor> {
        let n = self.bytes.len() / self.size();
        Tensor::from_bytes(self.dtype, vec![n], self.bytes.clone())
    }

    /// The elements as a tensor of `shape`.
    fn shaped(&self, shape: &[usize]) -> Result<Tensor> {
        Tensor::from_bytes(self.dtype, shape.to_vec(), self.bytes.clone())
    }
}
