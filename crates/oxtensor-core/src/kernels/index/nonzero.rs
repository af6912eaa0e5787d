//! `Nonzero`'s loop: the coordinates of the nonzero elements of a tensor of
//! any dtype and layout, one int64 array per axis, in C order (NumPy's
//! `nonzero`; NaN counts as nonzero, as in NumPy's `astype(bool)`). The
//! mask is packed to bits first ([`MaskBits`]), which counts it; then each
//! part writes its positions, unravelled a row at a time: the last axis's
//! coordinate is the offset in the row, the others change only when a
//! position leaves the current row.

use super::mask_bits::{for_each_set, output_ranges, run_parts, split_mut, MaskBits, Sink};
use crate::dtype::DType;
use crate::error::Result;
use crate::kernels::alloc::{output, Pool};
use crate::tensor::{layout, Tensor};

/// One int64 vector per axis of `t` (at least 1-d), listing its nonzero
/// elements' coordinates in C order; the vectors come from `pool` when
/// one is given.
pub fn nonzero_coords(t: &Tensor, mut pool: Option<&mut Pool>) -> Result<Vec<Tensor>> {
    let bits = MaskBits::from_tensor(t)?;
    let mut outs: Vec<Tensor> = (0..t.ndim())
        .map(|_| output(pool.as_deref_mut(), DType::Int64, &[bits.count]))
        .collect::<Result<_>>()?;
    let mut slices: Vec<&mut [i64]> = outs
        .iter_mut()
        .map(|o| o.as_mut_slice::<i64>().expect("a fresh int64 vector"))
        .collect();
    write_coords(&bits, t.shape(), &mut slices);
    drop(slices);
    Ok(outs)
}

/// [`nonzero_coords`] as plain vectors (the index arrays of a boolean
/// mask in advanced indexing).
pub fn nonzero_vecs(t: &Tensor) -> Result<Vec<Vec<i64>>> {
    let bits = MaskBits::from_tensor(t)?;
    let mut outs = (0..t.ndim())
        .map(|_| layout::filled_vec(bits.count, 0i64))
        .collect::<Result<Vec<_>>>()?;
    let mut slices: Vec<&mut [i64]> = outs.iter_mut().map(|v| v.as_mut_slice()).collect();
    write_coords(&bits, t.shape(), &mut slices);
    Ok(outs)
}

/// Writes the coordinates of `bits`' set positions in a C-order array of
/// `shape` into `outs`, one slice of `bits.count` per axis.
pub fn write_coords(bits: &MaskBits, shape: &[usize], outs: &mut [&mut [i64]]) {
    assert!(outs.len() == shape.len() && outs.iter().all(|o| o.len() == bits.count));
    let ranges = output_ranges(&bits.parts);
    let mut per_part: Vec<Vec<&mut [i64]>> = ranges.iter().map(|_| Vec::new()).collect();
    for out in outs.iter_mut() {
        for (k, s) in split_mut(out, &ranges, 1).into_iter().enumerate() {
            per_part[k].push(s);
        }
    }
    run_parts(bits, per_part, |part, mut outs| {
        let words = &bits.words[part.words.clone()];
        let first = part.words.start * 64;
        match &mut outs[..] {
            [flat] => for_each_set(words, first, &mut Flat { out: flat, k: 0 }),
            _ => for_each_set(words, first, &mut Coords::new(outs, shape)),
        }
    });
}

/// A 1-d mask's positions: the coordinates themselves.
struct Flat<'a> {
    out: &'a mut [i64],
    k: usize,
}

impl Sink for Flat<'_> {
    #[inline(always)]
    fn one(&mut self, i: usize) {
        self.out[self.k] = i as i64;
        self.k += 1;
    }

    #[inline(always)]
    fn full(&mut self, base: usize) {
        let run = &mut self.out[self.k..self.k + 64];
        for (j, o) in run.iter_mut().enumerate() {
            *o = (base + j) as i64;
        }
        self.k += 64;
    }
}

/// An n-d mask's positions, unravelled against the current row.
struct Coords<'a> {
    outs: Vec<&'a mut [i64]>,
    k: usize,
    /// The shape of the axes before the last.
    outer_shape: &'a [usize],
    /// The last axis's length.
    row_len: usize,
    /// The current row's first and one-past-last positions.
    row: (usize, usize),
    /// The current row's coordinates on the axes before the last.
    outer: Vec<i64>,
}

impl<'a> Coords<'a> {
    fn new(outs: Vec<&'a mut [i64]>, shape: &'a [usize]) -> Coords<'a> {
        let (&row_len, outer_shape) = shape.split_last().expect("an n-d shape");
        Coords {
            outer: vec![0; outer_shape.len()],
            outs,
            k: 0,
            outer_shape,
            row_len,
            row: (0, 0),
        }
    }

    /// Moves to the row holding position `i` (`row_len` is not 0: a
    /// shape with a zero has no positions).
    #[cold]
    fn seek(&mut self, i: usize) {
        let mut r = i / self.row_len;
        self.row = (r * self.row_len, (r + 1) * self.row_len);
        for (c, &n) in self.outer.iter_mut().zip(self.outer_shape).rev() {
            *c = (r % n) as i64;
            r /= n;
        }
    }
}

impl Sink for Coords<'_> {
    #[inline(always)]
    fn one(&mut self, i: usize) {
        if i >= self.row.1 {
            self.seek(i);
        }
        let (last, outer) = self.outs.split_last_mut().expect("an n-d shape");
        last[self.k] = (i - self.row.0) as i64;
        for (o, &c) in outer.iter_mut().zip(&self.outer) {
            o[self.k] = c;
        }
        self.k += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::pseudo_random;

    /// The coordinates a plain loop over C order finds.
    fn reference(shape: &[usize], flags: &[bool]) -> Vec<Vec<i64>> {
        let mut coords = vec![Vec::new(); shape.len()];
        for (flat, _) in flags.iter().enumerate().filter(|(_, &b)| b) {
            let mut rest = flat;
            for d in (0..shape.len()).rev() {
                coords[d].push((rest % shape[d]) as i64);
                rest /= shape[d];
            }
        }
        coords
    }

    fn values(ts: &[Tensor]) -> Vec<Vec<i64>> {
        ts.iter()
            .map(|t| t.as_slice::<i64>().unwrap().to_vec())
            .collect()
    }

    #[test]
    fn coordinates_in_c_order() {
        let t = Tensor::from_vec(vec![2, 3], vec![0.0f64, 1.0, 0.0, f64::NAN, 0.0, -2.0]).unwrap();
        let want = vec![vec![0, 1, 1], vec![1, 0, 2]];
        assert_eq!(values(&nonzero_coords(&t, None).unwrap()), want);
        assert_eq!(nonzero_vecs(&t).unwrap(), want);
        let signed_zero = Tensor::from_vec(vec![3], vec![-0.0f32, 0.0, f32::INFINITY]).unwrap();
        assert_eq!(nonzero_vecs(&signed_zero).unwrap(), vec![vec![2]]);
    }

    #[test]
    fn empty_input_gives_empty_coordinates() {
        let t = Tensor::from_vec(vec![0, 4], Vec::<i32>::new()).unwrap();
        assert_eq!(
            values(&nonzero_coords(&t, None).unwrap()),
            vec![Vec::<i64>::new(), Vec::new()]
        );
    }

    #[test]
    fn random_masks_of_every_density_and_shape() {
        // Lengths around word (64) and part boundaries, densities from
        // none to all, 1-d to 4-d shapes, rows shorter and longer than a word.
        let shapes: &[&[usize]] = &[
            &[1],
            &[63],
            &[64],
            &[65],
            &[129],
            &[300_001],
            &[3, 5],
            &[7, 64],
            &[1000, 1001],
            &[2, 3, 4, 5],
            &[70_000, 3],
            &[4, 1, 130],
        ];
        for &shape in shapes {
            let n: usize = shape.iter().product();
            for (seed, density) in [(1, 0.0), (2, 0.01), (3, 0.5), (4, 0.99), (5, 1.0)] {
                let flags: Vec<bool> = pseudo_random(n, seed)
                    .into_iter()
                    .map(|u| u < density)
                    .collect();
                let t = Tensor::from_vec(shape.to_vec(), flags.clone()).unwrap();
                let got = values(&nonzero_coords(&t, None).unwrap());
                assert_eq!(got, reference(shape, &flags), "{shape:?} at {density}");
            }
        }
    }

    #[test]
    fn strided_inputs_are_read_in_logical_order() {
        // The transpose of a 3x70 int matrix, and every other element of it.
        let n = 3 * 70;
        let data: Vec<i32> = pseudo_random(n, 9)
            .into_iter()
            .map(|u| (u < 0.4) as i32 * 7)
            .collect();
        let t = Tensor::from_vec(vec![3, 70], data.clone()).unwrap();
        let tt = t.view(&[70, 3], &[4, 280], 0).unwrap();
        let flags: Vec<bool> = (0..n).map(|i| data[(i % 3) * 70 + i / 3] != 0).collect();
        assert_eq!(nonzero_vecs(&tt).unwrap(), reference(&[70, 3], &flags));
        let every_other = t.view(&[3, 35], &[280, 8], 0).unwrap();
        let flags: Vec<bool> = (0..105)
            .map(|i| data[(i / 35) * 70 + (i % 35) * 2] != 0)
            .collect();
        assert_eq!(
            nonzero_vecs(&every_other).unwrap(),
            reference(&[3, 35], &flags)
        );
    }
}
