//! The buffer of a destroyed input, granted to the op that destroys it.
//!
//! An inplace op (a `destroy_map` the `DestroyHandler` accepted, which
//! orders every other reader of the value and of its views before the op)
//! may write its output into the input it destroys. The program offers
//! that input for the step ([`Pool::grant`]; one per destroying output, so
//! every output of a fused node may land in an input of its own); the op
//! takes it ([`Pool::take_grant`]) only when, at that moment, nothing but
//! the program holds the buffer: its storage slot (or the caller's
//! argument), the mutable argument it views if it is a view of one
//! ([`Pool::grant_held`]), and the grant. A holder the graph does not
//! show (an undeclared view, a value a host op kept, a slot kept alive by
//! `allow_gc=False` or a lazy run) holds one more reference, and the op then allocates as a pure op would: a
//! destroy map allows an op to overwrite its input, it never requires it.
//!
//! The kernels write through a second handle on the same memory (the
//! writer of [`Granted::into_parts`], a buffer of its own whose only owner is a handle on
//! the original), since they write only into outputs nobody else holds;
//! they read each element of the destroyed input before writing the output
//! at the same position, which is what makes the overwrite correct
//! (`kernels/elemwise.rs`, `kernels/fused/granted.rs` say where).

use super::Pool;
use crate::tensor::{layout, Buffer, Tensor};
use std::any::Any;
use std::ptr::NonNull;
use std::sync::Arc;

/// A destroyed input, writable as an op's output.
pub struct Granted {
    /// The input's tensor: the op's output once written.
    target: Tensor,
    /// The same memory, as a fresh output nobody else holds.
    writer: Tensor,
}

impl Granted {
    /// The destroyed input's own tensor (the op's output once written) and
    /// the writer: the same memory as a C-contiguous output of its dtype
    /// and shape, which the kernel writes and then drops.
    pub fn into_parts(self) -> (Tensor, Tensor) {
        (self.target, self.writer)
    }
}

/// An input offered to the running step, and how many handles the
/// program itself legitimately holds on its buffer.
#[derive(Debug)]
pub(crate) struct Grant {
    tensor: Tensor,
    /// The program's handles: the value's own (its storage slot or the
    /// caller's argument), plus the mutable argument it is a view of, if
    /// it is one (see `vm/destroy_grant.rs`).
    holders: usize,
}

impl Grant {
    /// Whether the grant is `x`: same buffer, offset, dtype and shape.
    fn is(&self, x: &Tensor) -> bool {
        let t = &self.tensor;
        Arc::ptr_eq(t.buffer(), x.buffer())
            && t.offset() == x.offset()
            && t.shape() == x.shape()
            && t.dtype() == x.dtype()
    }
}

impl Pool {
    /// Offers `t`, an input the running step destroys, to its op; the
    /// program holds `t`'s buffer once (its storage slot or argument).
    pub fn grant(&mut self, t: Tensor) {
        self.grant_held(t, 1);
    }

    /// Offers `t` to the running step's op, the program holding its buffer
    /// `holders` times: twice for a view (a reshape, say) of a mutable
    /// argument, held by its slot and by the argument. Several grants may
    /// be offered at once, one per output that destroys an input.
    pub fn grant_held(&mut self, t: Tensor, holders: usize) {
        self.grants.push(Grant { tensor: t, holders });
    }

    /// Ends the running step's grants.
    pub fn end_grant(&mut self) {
        self.grants.clear();
    }

    /// Whether a grant is offered (for tests).
    pub fn has_grant(&self) -> bool {
        !self.grants.is_empty()
    }

    /// The granted input `x`, writable, when it is granted (same buffer,
    /// offset, dtype and shape), C-contiguous, not empty, writable memory,
    /// and held by the program's own handles and the grant only (a buffer
    /// granted twice is held by both grants, so neither is taken).
    pub fn take_grant(&mut self, x: &Tensor) -> Option<Granted> {
        let k = self.grants.iter().position(|g| g.is(x))?;
        let Grant { tensor: t, holders } = &self.grants[k];
        let buf = t.buffer();
        let private = Arc::strong_count(buf) == holders + 1;
        if !(private && t.is_c_contiguous() && !t.is_empty()) {
            return None;
        }
        let base = buf.as_mut_ptr()?;
        let ptr = NonNull::new(base.wrapping_add(t.offset()))?;
        let bytes = layout::nbytes(t.dtype(), t.shape()).ok()?;
        let owner: Box<dyn Any + Send + Sync> = Box::new(Arc::clone(buf));
        // SAFETY: `ptr..ptr+bytes` is the tensor's elements (C-contiguous
        // from its offset) in writable memory that `owner`, a handle on the
        // buffer, keeps alive; the DestroyHandler's ordering and the count
        // above make the destroying op the only one using it now.
        let memory = unsafe { Buffer::from_host(ptr, bytes, true, owner) };
        let writer = Tensor::contiguous_in(t.dtype(), t.shape(), memory)?;
        let target = self.grants.swap_remove(k).tensor;
        Some(Granted { target, writer })
    }
}

impl Pool {
    /// The granted input `x`, once `write` has turned it into the output
    /// over its own memory (the inplace `CumOp` and `SortOp`, whose
    /// kernels work on the one array); `None` when the program did not
    /// grant it, and the op then allocates as a pure op would.
    pub fn overwrite_granted(
        &mut self,
        x: &Tensor,
        write: impl FnOnce(&mut Tensor) -> crate::error::Result<()>,
    ) -> crate::error::Result<Option<Tensor>> {
        let Some(granted) = self.take_grant(x) else {
            return Ok(None);
        };
        let (target, mut writer) = granted.into_parts();
        write(&mut writer)?;
        Ok(Some(target))
    }
}

/// Whether two tensors' buffers overlap in memory (whole buffers: a
/// conservative answer for strided views).
pub fn buffers_overlap(a: &Tensor, b: &Tensor) -> bool {
    let range = |t: &Tensor| {
        let start = t.buffer().as_ptr() as usize;
        (start, start + t.buffer().len())
    };
    let ((a0, a1), (b0, b1)) = (range(a), range(b));
    a0 < b1 && b0 < a1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;

    #[test]
    fn a_grant_is_taken_only_by_its_sole_other_holder() {
        let mut pool = Pool::default();
        let x = Tensor::from_vec(vec![3], vec![1.0f64, 2.0, 3.0]).unwrap();
        pool.grant(x.clone());
        let (out, mut writer) = pool.take_grant(&x).expect("granted").into_parts();
        writer
            .as_mut_slice::<f64>()
            .unwrap()
            .copy_from_slice(&[4.0, 5.0, 6.0]);
        drop(writer);
        assert!(out.shares_buffer(&x));
        assert_eq!(x.as_slice::<f64>().unwrap(), &[4.0, 5.0, 6.0]);
        assert!(!pool.has_grant());
    }

    #[test]
    fn another_holder_or_another_tensor_gets_nothing() {
        let mut pool = Pool::default();
        let x = Tensor::from_vec(vec![2], vec![1.0f64, 2.0]).unwrap();
        let view = x.clone();
        pool.grant(x.clone());
        assert!(pool.take_grant(&x).is_none(), "a third handle exists");
        drop(view);
        let y = Tensor::zeros(DType::Float64, &[2]).unwrap();
        assert!(pool.take_grant(&y).is_none(), "not the granted tensor");
        pool.end_grant();
        assert!(pool.take_grant(&x).is_none());
    }

    #[test]
    fn several_grants_are_taken_each_by_its_tensor() {
        let mut pool = Pool::default();
        let x = Tensor::from_vec(vec![2], vec![1.0f64, 2.0]).unwrap();
        let y = Tensor::from_vec(vec![2], vec![3.0f64, 4.0]).unwrap();
        pool.grant(x.clone());
        pool.grant(y.clone());
        let (ty, _) = pool.take_grant(&y).expect("y granted").into_parts();
        assert!(ty.shares_buffer(&y) && pool.has_grant());
        let (tx, _) = pool.take_grant(&x).expect("x granted").into_parts();
        assert!(tx.shares_buffer(&x) && !pool.has_grant());
        // A buffer granted twice is held by both grants: neither is taken.
        let z = Tensor::from_vec(vec![2], vec![5.0f64, 6.0]).unwrap();
        pool.grant(z.clone());
        pool.grant(z.clone());
        assert!(pool.take_grant(&z).is_none());
    }

    #[test]
    fn a_view_of_a_mutable_argument_counts_the_argument_as_the_programs() {
        let mut pool = Pool::default();
        let argument = Tensor::from_vec(vec![2, 2], vec![1.0f64, 2.0, 3.0, 4.0]).unwrap();
        let flat = argument.view(&[4], &[8], 0).unwrap();
        // Held by the argument and the view's slot: one holder too many
        // for a plain grant, exactly the program's for a held one.
        pool.grant(flat.clone());
        assert!(pool.take_grant(&flat).is_none());
        pool.end_grant();
        pool.grant_held(flat.clone(), 2);
        assert!(pool.take_grant(&flat).is_some());
        // Any other handle (a view elsewhere) still keeps it.
        let other = argument.view(&[2], &[8], 0).unwrap();
        pool.grant_held(flat.clone(), 2);
        assert!(pool.take_grant(&flat).is_none());
        drop(other);
    }

    #[test]
    fn overlap_is_by_memory() {
        let x = Tensor::zeros(DType::Float64, &[4]).unwrap();
        let y = Tensor::zeros(DType::Float64, &[4]).unwrap();
        assert!(buffers_overlap(&x, &x.clone()));
        assert!(!buffers_overlap(&x, &y));
    }
}
