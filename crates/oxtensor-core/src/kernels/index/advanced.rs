//! NumPy's advanced indexing at run time: slices become a view, boolean
//! masks become the integer arrays of their nonzero coordinates, the integer
//! arrays are broadcast together, and every broadcast position becomes one
//! block (the axes that were not indexed by arrays) to gather from or
//! scatter into. The block of array dimensions goes where the arrays were
//! when they are adjacent in the index, and first otherwise.

use super::mask_index::check_mask_shape;
use super::nonzero::nonzero_vecs;
use super::subtensor::{broadcast_value, gather_blocks, run_blocks, Blocks, Write};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::elemwise::cast::cast;
use crate::kernels::iter::broadcast_shapes;
use crate::tensor::index::{out_of_bounds, resolve_slice, scalar_index, wrap_index, IdxEntry};
use crate::tensor::{c_strides, layout, Tensor};

/// An advanced index resolved against one tensor. Only [`plan`] makes
/// one (the fields are the crate's), so `offsets` always hold indices that
/// `wrap_index`'s bounds check put inside `view`: [`gather`] and [`scatter`]
/// rely on it.
pub struct Plan {
    /// The tensor with the slices applied (array-indexed axes whole).
    pub(crate) view: Tensor,
    /// The broadcast shape of the index arrays.
    pub(crate) b_shape: Vec<usize>,
    /// Byte offset in `view` of each broadcast position, in C order.
    pub(crate) offsets: Vec<isize>,
    /// The axes of `view` not indexed by arrays, in order.
    pub(crate) rest: Vec<usize>,
    /// How many of `rest` come before the array dimensions in the result.
    pub(crate) pre: usize,
}

/// One integer index array: the axis it indexes, its shape and values.
struct IndexArray {
    axis: usize,
    shape: Vec<usize>,
    values: Vec<i64>,
}

impl Plan {
    /// The result's shape: `rest[..pre]`, the array dimensions, `rest[pre..]`.
    pub fn out_shape(&self) -> Vec<usize> {
        let dims: Vec<usize> = self.rest.iter().map(|&a| self.view.shape()[a]).collect();
        let mut out = dims[..self.pre].to_vec();
        out.extend_from_slice(&self.b_shape);
        out.extend_from_slice(&dims[self.pre..]);
        out
    }

    /// The result's axes that are `rest` axes (skipping the array dimensions).
    fn rest_positions(&self) -> Vec<usize> {
        let nb = self.b_shape.len();
        (0..self.rest.len())
            .map(|k| if k < self.pre { k } else { k + nb })
            .collect()
    }
}

/// Resolves `x[idx_list]` with the index inputs `values`.
pub fn plan(x: &Tensor, idx_list: &[IdxEntry], values: &[&Tensor]) -> Result<Plan> {
    let value = |p: usize| -> Result<&Tensor> {
        values
            .get(p)
            .copied()
            .ok_or_else(|| Error::Index(format!("missing index input {p}")))
    };
    let bound = |p: Option<usize>| p.map(|p| value(p).and_then(scalar_index)).transpose();
    let (mut shape, mut strides) = (x.shape().to_vec(), x.strides().to_vec());
    let mut offset = x.offset() as isize;
    let (mut arrays, mut entry_of_array) = (Vec::new(), Vec::new());
    let mut axis = 0;
    for (k, entry) in idx_list.iter().enumerate() {
        match *entry {
            IdxEntry::Slice { start, stop, step } => {
                let len = *shape.get(axis).ok_or_else(|| too_many(x.ndim()))?;
                let r = resolve_slice(len, bound(start)?, bound(stop)?, bound(step)?)?;
                offset += r.start as isize * strides[axis];
                shape[axis] = r.count;
                strides[axis] *= r.step;
                axis += 1;
            }
            IdxEntry::Index(p) => {
                let found = index_arrays(value(p)?, axis, x.shape())?;
                axis += found.len();
                entry_of_array.extend(std::iter::repeat_n(k, found.len()));
                arrays.extend(found);
            }
        }
    }
    if shape.contains(&0) {
        offset = x.offset() as isize;
    }
    let view = x.view(&shape, &strides, offset as usize)?;
    let adjacent = entry_of_array.windows(2).all(|w| w[1] <= w[0] + 1);
    let first = arrays.first().map_or(0, |a| a.axis);
    let rest: Vec<usize> = (0..x.ndim())
        .filter(|d| !arrays.iter().any(|a| a.axis == *d))
        .collect();
    let pre = if adjacent {
        rest.iter().filter(|&&d| d < first).count()
    } else {
        0
    };
    let (b_shape, offsets) = array_offsets(&view, &arrays)?;
    Ok(Plan {
        view,
        b_shape,
        offsets,
        rest,
        pre,
    })
}

fn too_many(ndim: usize) -> Error {
    Error::Index(format!(
        "too many indices for tensor: tensor is {ndim}-dimensional"
    ))
}

/// The integer arrays an index input stands for: itself, or a boolean
/// mask's nonzero coordinates (one array per mask dimension).
fn index_arrays(t: &Tensor, axis: usize, x_shape: &[usize]) -> Result<Vec<IndexArray>> {
    if t.dtype() == DType::Bool {
        return mask_arrays(t, axis, x_shape);
    }
    if !t.dtype().is_integer() {
        return Err(Error::Type(format!(
            "index must be integers or a boolean mask, got {}",
            t.dtype()
        )));
    }
    if axis >= x_shape.len() {
        return Err(too_many(x_shape.len()));
    }
    let ints = crate::kernels::copy::to_contiguous(&cast(t, DType::Int64)?)?;
    let values = ints
        .as_slice::<i64>()
        .expect("a contiguous int64 tensor")
        .to_vec();
    Ok(vec![IndexArray {
        axis,
        shape: t.shape().to_vec(),
        values,
    }])
}

fn mask_arrays(t: &Tensor, axis: usize, x_shape: &[usize]) -> Result<Vec<IndexArray>> {
    let k = t.ndim();
    if k == 0 {
        return Err(Error::OutOfScope("0-d boolean indices".into()));
    }
    if axis + k > x_shape.len() {
        return Err(too_many(x_shape.len()));
    }
    check_mask_shape(t.shape(), x_shape, axis)?;
    let coords = nonzero_vecs(t)?;
    Ok(coords
        .into_iter()
        .enumerate()
        .map(|(d, values)| IndexArray {
            axis: axis + d,
            shape: vec![values.len()],
            values,
        })
        .collect())
}

/// The broadcast shape of the arrays and each position's byte offset.
fn array_offsets(view: &Tensor, arrays: &[IndexArray]) -> Result<(Vec<usize>, Vec<isize>)> {
    let shapes: Vec<&[usize]> = arrays.iter().map(|a| a.shape.as_slice()).collect();
    let b_shape = broadcast_shapes(&shapes).map_err(|e| match e {
        Error::Shape(_) => {
            let list: Vec<String> = shapes.iter().map(|s| format!("{s:?}")).collect();
            Error::Index(format!(
                "shape mismatch: indexing arrays could not be broadcast together with shapes {}",
                list.join(" ")
            ))
        }
        other => other,
    })?;
    if let [a] = arrays {
        if a.shape.len() == 1 {
            // One index vector (`take`, `x[v]`): no broadcasting to walk.
            let (len, stride) = (view.shape()[a.axis], view.strides()[a.axis]);
            let offsets = a
                .values
                .iter()
                .map(|&i| wrap_index(i, len, a.axis).map(|j| j as isize * stride))
                .collect::<Result<Vec<_>>>()?;
            return Ok((b_shape.to_vec(), offsets));
        }
    }
    let n: usize = b_shape.iter().product();
    let mut offsets = layout::filled_vec(n, 0isize)?;
    // Broadcasting visits every index value unless the result is empty; NumPy
    // checks them all even then.
    if n == 0 {
        for a in arrays {
            let len = view.shape()[a.axis];
            a.values
                .iter()
                .try_for_each(|&i| wrap_index(i, len, a.axis).map(|_| ()))?;
        }
    }
    for a in arrays {
        let (len, stride) = (view.shape()[a.axis], view.strides()[a.axis]);
        add_offsets(&mut offsets, a, &b_shape, (len, stride))?;
    }
    Ok((b_shape.to_vec(), offsets))
}

/// Adds each broadcast position's byte offset along `a`'s axis (`len`
/// elements `stride` bytes apart) into `offsets`, a row of the last
/// broadcast dimension at a time: a call per element cost twice NumPy's
/// whole `take_along_axis`.
fn add_offsets(
    offsets: &mut [isize],
    a: &IndexArray,
    b_shape: &[usize],
    (len, stride): (usize, isize),
) -> Result<()> {
    let steps = element_strides(&a.shape, b_shape);
    let (lead, inner) = match b_shape.split_last() {
        Some((&n, lead)) => (lead, n),
        None => (b_shape, 1),
    };
    let step = steps.last().copied().unwrap_or(0);
    if inner == 0 {
        return Ok(());
    }
    for_each_position(lead, &steps[..lead.len()], |r, pos| {
        let row = &mut offsets[r * inner..][..inner];
        add_row(row, &a.values[pos..], step, (len, stride))
            .map_err(|i| out_of_bounds(i, len, a.axis))
    })
}

/// `row[k] += wrap(values[k * step]) * stride` for `step` 0 (one value
/// broadcast along the row) or 1; `Err(i)`: index `i` is out of bounds.
fn add_row(
    row: &mut [isize],
    values: &[i64],
    step: usize,
    (len, stride): (usize, isize),
) -> std::result::Result<(), i64> {
    let n = len as i64;
    let wrapped = |i: i64| {
        let j = if i < 0 { i + n } else { i };
        if (0..n).contains(&j) {
            Ok(j as isize * stride)
        } else {
            Err(i)
        }
    };
    if step == 0 {
        let add = wrapped(values[0])?;
        row.iter_mut().for_each(|o| *o += add);
    } else {
        // A contiguous array's last broadcast dimension is its own last
        // dimension: step 1.
        debug_assert_eq!(step, 1);
        for (o, &i) in row.iter_mut().zip(values) {
            *o += wrapped(i)?;
        }
    }
    Ok(())
}

/// Element strides of an array of `shape` broadcast to `target`.
fn element_strides(shape: &[usize], target: &[usize]) -> Vec<usize> {
    let pad = target.len() - shape.len();
    let mut out = vec![0; target.len()];
    let mut step = 1;
    for d in (0..shape.len()).rev() {
        out[pad + d] = if shape[d] == 1 { 0 } else { step };
        step *= shape[d];
    }
    out
}

/// Calls `f(flat position, element index)` over `shape` in C order.
fn for_each_position(
    shape: &[usize],
    steps: &[usize],
    mut f: impl FnMut(usize, usize) -> Result<()>,
) -> Result<()> {
    let n: usize = shape.iter().product();
    let mut index = vec![0usize; shape.len()];
    let mut pos = 0;
    for b in 0..n {
        f(b, pos)?;
        for d in (0..shape.len()).rev() {
            index[d] += 1;
            pos += steps[d];
            if index[d] < shape[d] {
                break;
            }
            pos -= steps[d] * shape[d];
            index[d] = 0;
        }
    }
    Ok(())
}

/// `x[idx_list]` into a fresh C-contiguous tensor `out` of the plan's shape.
pub fn gather(p: &Plan, out: &mut Tensor) -> Result<()> {
    let shape = p.out_shape();
    if out.shape() != shape.as_slice() || out.dtype() != p.view.dtype() || !out.is_c_contiguous() {
        return Err(Error::Value(format!(
            "a gather of shape {shape:?} needs a C-contiguous {} output of that shape, got {:?}",
            p.view.dtype(),
            out.shape()
        )));
    }
    let out_strides = c_strides(out.dtype(), &shape);
    let positions = p.rest_positions();
    let block_bytes: isize = (p.pre + p.b_shape.len()..shape.len())
        .map(|d| shape[d] as isize)
        .product::<isize>()
        * out.dtype().itemsize() as isize;
    let blocks = Blocks {
        shape: p.rest.iter().map(|&a| p.view.shape()[a]).collect(),
        src_strides: p.rest.iter().map(|&a| p.view.strides()[a]).collect(),
        dst_strides: positions.iter().map(|&k| out_strides[k]).collect(),
        pairs: p
            .offsets
            .iter()
            .enumerate()
            .map(|(b, &o)| (o, b as isize * block_bytes))
            .collect(),
    };
    // SAFETY: each source offset is an element of `p.view` along the
    // array axes (every index passed `add_row`'s or `wrap_index`'s bounds
    // check against its axis' length; only `plan` makes a `Plan`), and the
    // block walks `view`'s other axes with its own strides: inside its
    // checked layout (`Tensor::check_layout`, `layout::extent`). Block `b`
    // of the destination is position `b` of `out`, whose shape, dtype and
    // C order were checked above: disjoint blocks inside `out`.
    unsafe { gather_blocks(&blocks, &p.view, out) }
}

/// Writes `y` (cast to the plan's dtype, broadcast to the result's shape
/// along its statically broadcastable axes) into the plan's view.
pub fn scatter(p: &mut Plan, y: &Tensor, y_bcast: &[bool], write: Write, what: &str) -> Result<()> {
    let shape = p.out_shape();
    let y = cast(y, p.view.dtype())?;
    let y_strides = broadcast_value(&y, y_bcast, &shape, what)?;
    let nb = p.b_shape.len();
    let b_strides = &y_strides[p.pre..p.pre + nb];
    let mut pairs = Vec::with_capacity(p.offsets.len());
    let mut y_off = 0isize;
    let mut index = vec![0usize; nb];
    for &o in &p.offsets {
        pairs.push((y_off, o));
        for d in (0..nb).rev() {
            index[d] += 1;
            y_off += b_strides[d];
            if index[d] < p.b_shape[d] {
                break;
            }
            y_off -= b_strides[d] * p.b_shape[d] as isize;
            index[d] = 0;
        }
    }
    let blocks = Blocks {
        shape: p.rest.iter().map(|&a| p.view.shape()[a]).collect(),
        src_strides: p.rest_positions().iter().map(|&k| y_strides[k]).collect(),
        dst_strides: p.rest.iter().map(|&a| p.view.strides()[a]).collect(),
        pairs,
    };
    // SAFETY: the destinations are `p.view`'s elements as in `gather`
    // (offsets bounded by `wrap_index`, the block on `view`'s checked
    // layout); the sources walk `y` broadcast to the result's shape
    // (`broadcast_value` checked the shapes, and only adds zero strides to
    // `y`'s checked layout), position by position in C order.
    unsafe { run_blocks(&blocks, &y, &mut p.view, write) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arange(shape: Vec<usize>) -> Tensor {
        let n = shape.iter().product::<usize>();
        Tensor::from_vec(shape, (0..n as i64).collect()).unwrap()
    }

    fn values(t: &Tensor) -> Vec<i64> {
        (0..t.len())
            .map(|i| match t.get(i) {
                crate::tensor::Scalar::Int(v) => v,
                _ => unreachable!(),
            })
            .collect()
    }

    #[test]
    fn gathers_like_numpy() {
        let x = arange(vec![3, 4]);
        let rows = Tensor::from_vec(vec![2], vec![2i64, 0]).unwrap();
        let cols = Tensor::from_vec(vec![2], vec![-1i64, 1]).unwrap();
        let p = plan(
            &x,
            &[IdxEntry::Index(0), IdxEntry::Index(1)],
            &[&rows, &cols],
        )
        .unwrap();
        let mut out = Tensor::zeros(DType::Int64, &p.out_shape()).unwrap();
        gather(&p, &mut out).unwrap();
        assert_eq!(values(&out), vec![11, 1]);
        // x[:, [2, 0]]: the array block stays in place.
        let p = plan(&x, &[IdxEntry::FULL, IdxEntry::Index(0)], &[&rows]).unwrap();
        assert_eq!(p.out_shape(), vec![3, 2]);
        let mut out = Tensor::zeros(DType::Int64, &p.out_shape()).unwrap();
        gather(&p, &mut out).unwrap();
        assert_eq!(values(&out), vec![2, 0, 6, 4, 10, 8]);
        let bad = Tensor::from_vec(vec![1], vec![3i64]).unwrap();
        let err = plan(&x, &[IdxEntry::Index(0)], &[&bad]).err().unwrap();
        assert_eq!(
            err.to_string(),
            "index 3 is out of bounds for axis 0 with size 3"
        );
    }

    #[test]
    fn column_gathers_copy_across_pairs_at_every_size() {
        // x[:, idx] with many columns: large enough for the threaded
        // gather, plus a complex dtype (16-byte elements, 8-byte aligned).
        let (rows, cols) = (300, 700);
        let x = arange(vec![rows, cols]);
        let idx: Vec<i64> = (0..500).map(|j| (j * 37 % cols) as i64 - 3).collect();
        let t = Tensor::from_vec(vec![idx.len()], idx.clone()).unwrap();
        let p = plan(&x, &[IdxEntry::FULL, IdxEntry::Index(0)], &[&t]).unwrap();
        let mut out = Tensor::zeros(DType::Int64, &p.out_shape()).unwrap();
        gather(&p, &mut out).unwrap();
        let wrap = |j: i64| if j < 0 { j + cols as i64 } else { j };
        let want: Vec<i64> = (0..rows as i64)
            .flat_map(|r| idx.iter().map(move |&j| r * cols as i64 + wrap(j)))
            .collect();
        assert_eq!(values(&out), want);
        let z = crate::kernels::elemwise::cast::cast(&x, DType::Complex128).unwrap();
        let p = plan(&z, &[IdxEntry::FULL, IdxEntry::Index(0)], &[&t]).unwrap();
        let mut out = Tensor::zeros(DType::Complex128, &p.out_shape()).unwrap();
        gather(&p, &mut out).unwrap();
        let back = crate::kernels::elemwise::cast::cast(&out, DType::Int64).unwrap();
        assert_eq!(values(&back), want);
    }

    #[test]
    fn broadcast_arrays_gather_row_by_row() {
        // x[rows[:, None], cols[None, ::2]]: `rows` broadcast along each
        // output row (step 0), a strided `cols`, negative indices.
        let x = arange(vec![3, 4]);
        let rows = Tensor::from_vec(vec![2, 1], vec![-1i64, 0]).unwrap();
        let all = Tensor::from_vec(vec![1, 6], vec![0i64, 9, -1, 9, 1, 9]).unwrap();
        let cols = all.view(&[1, 3], &[48, 16], 0).unwrap();
        let list = [IdxEntry::Index(0), IdxEntry::Index(1)];
        let p = plan(&x, &list, &[&rows, &cols]).unwrap();
        assert_eq!(p.out_shape(), vec![2, 3]);
        let mut out = Tensor::zeros(DType::Int64, &p.out_shape()).unwrap();
        gather(&p, &mut out).unwrap();
        assert_eq!(values(&out), vec![8, 11, 9, 0, 3, 1]);
        let bad = Tensor::from_vec(vec![1, 2], vec![1i64, -5]).unwrap();
        let err = plan(&x, &list, &[&rows, &bad]).err().unwrap();
        assert_eq!(
            err.to_string(),
            "index -5 is out of bounds for axis 1 with size 4"
        );
    }

    #[test]
    fn large_gathers_split_across_threads() {
        let x = arange(vec![300, 40]);
        let n = 5000;
        let rows: Vec<i64> = (0..n).map(|i| (i * 7919 % 300) as i64 - 150).collect();
        let v = Tensor::from_vec(vec![n], rows.clone()).unwrap();
        let p = plan(&x, &[IdxEntry::Index(0)], &[&v]).unwrap();
        let mut out = Tensor::zeros(DType::Int64, &p.out_shape()).unwrap();
        gather(&p, &mut out).unwrap();
        let want: Vec<i64> = rows
            .iter()
            .flat_map(|&r| (0..40).map(move |c| (r.rem_euclid(300)) * 40 + c))
            .collect();
        assert_eq!(values(&out), want, "x[v]: one contiguous run per row");
        // x[:, w]: every block is a strided column.
        let cols: Vec<i64> = (0..n).map(|i| (i * 31 % 40) as i64).collect();
        let w = Tensor::from_vec(vec![n], cols.clone()).unwrap();
        let p = plan(&x, &[IdxEntry::FULL, IdxEntry::Index(0)], &[&w]).unwrap();
        let mut out = Tensor::zeros(DType::Int64, &p.out_shape()).unwrap();
        gather(&p, &mut out).unwrap();
        let want: Vec<i64> = (0..300)
            .flat_map(|r| cols.iter().map(move |&c| r * 40 + c))
            .collect();
        assert_eq!(values(&out), want, "x[:, w]: strided blocks");
    }

    #[test]
    fn scatters_accumulate() {
        let mut x = Tensor::zeros(DType::Float64, &[3]).unwrap();
        let idx = Tensor::from_vec(vec![3], vec![0i64, 0, 2]).unwrap();
        let mut p = plan(&x, &[IdxEntry::Index(0)], &[&idx]).unwrap();
        let y = Tensor::scalar(1.0f64);
        scatter(&mut p, &y, &[], Write::Inc, "t").unwrap();
        drop(p);
        let want = Tensor::from_vec(vec![3], vec![2.0f64, 0.0, 1.0]).unwrap();
        assert!(x.same_values(&want));
        let _ = &mut x;
    }
}
