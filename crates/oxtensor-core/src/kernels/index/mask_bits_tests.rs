//! Tests of the packed mask: packing, counts, parts and the set-bit walk.

use super::*;
use crate::kernels::pseudo_random;

/// Mask bytes of `n` elements, set with probability `density`; set bytes
/// cycle through 1, 2 and 255 (NumPy bools may hold any nonzero byte).
fn bytes(n: usize, density: f64, seed: u64) -> Vec<u8> {
    pseudo_random(n, seed)
        .into_iter()
        .enumerate()
        .map(|(i, u)| if u < density { [1, 2, 255][i % 3] } else { 0 })
        .collect()
}

/// Positions of the set bits, as the walk reports them (full words
/// expanded by the trait's default).
struct Collect(Vec<usize>, usize);

impl Sink for Collect {
    fn one(&mut self, i: usize) {
        self.0.push(i);
    }

    fn full(&mut self, base: usize) {
        self.1 += 1;
        self.0.extend(base..base + 64);
    }
}

#[test]
fn packs_and_walks_like_a_plain_loop() {
    let lengths = [0, 1, 63, 64, 65, 127, 128, 129, 1000, 70_000, 1 << 20];
    for n in lengths {
        for (seed, density) in [(1, 0.0), (2, 0.01), (3, 0.5), (4, 1.0)] {
            let b = bytes(n, density, seed);
            let bits = MaskBits::from_bytes(&b);
            let want: Vec<usize> = (0..n).filter(|&i| b[i] != 0).collect();
            assert_eq!(bits.count, want.len(), "{n} at {density}");
            assert_eq!(bits.words.len(), n.div_ceil(64));
            let mut walk = Collect(Vec::new(), 0);
            for p in &bits.parts {
                let before = walk.0.len();
                assert_eq!(p.start, before, "a part starts after the ones before");
                for_each_set(&bits.words[p.words.clone()], p.words.start * 64, &mut walk);
                assert_eq!(walk.0.len() - before, p.count);
            }
            assert_eq!(walk.0, want, "{n} at {density}");
            if density == 1.0 {
                assert_eq!(walk.1, n / 64, "full words are taken whole");
            }
        }
    }
}

#[test]
fn large_masks_are_cut_into_contiguous_parts() {
    let b = bytes(1 << 20, 0.3, 7);
    let bits = MaskBits::from_bytes(&b);
    if rayon::current_num_threads() > 1 {
        assert!(bits.parallel());
    }
    let mut next = 0;
    for p in &bits.parts {
        assert_eq!(p.words.start, next);
        next = p.words.end;
    }
    assert_eq!(next, bits.words.len());
    assert_eq!(
        output_ranges(&bits.parts).last().map(|r| r.end),
        Some(bits.count)
    );
}

#[test]
fn simd_packing_matches_the_portable_loop() {
    let b = bytes(64 * 50, 0.5, 11);
    let mut portable = vec![0u64; 50];
    for (w, chunk) in portable.iter_mut().zip(b.chunks_exact(64)) {
        let chunk: &[u8; 64] = chunk.try_into().unwrap();
        assert_eq!(pack64(chunk), pack64_portable(chunk));
        *w = pack64_portable(chunk);
    }
    let mut packed = vec![0u64; 50];
    let count = pack_full(&b, &mut packed);
    assert_eq!(packed, portable);
    assert_eq!(count, b.iter().filter(|&&v| v != 0).count());
}

#[test]
fn tensors_of_any_dtype_and_layout() {
    let t = Tensor::from_vec(vec![2, 3], vec![0.0f64, -0.0, f64::NAN, 1.0, 0.0, -2.0]).unwrap();
    let bits = MaskBits::from_tensor(&t).unwrap();
    assert_eq!((bits.count, bits.words.clone()), (3, vec![0b101100]));
    // Its transpose, read in C order: 0, 1, -0, 0, NaN, -2.
    let tt = t.view(&[3, 2], &[8, 24], 0).unwrap();
    assert_eq!(MaskBits::from_tensor(&tt).unwrap().words, vec![0b110010]);
    let split = split_mut(&mut [1, 2, 3, 4, 5, 6][..], &[0..1, 1..3], 2)
        .into_iter()
        .map(|s| s.to_vec())
        .collect::<Vec<_>>();
    assert_eq!(split, vec![vec![1, 2], vec![3, 4, 5, 6]]);
}
