#![no_std]
#![deny(missing_docs)]
//! # croupier-policy
//!
//! A trained policy as an agent reads it: a multilayer perceptron stored as safetensors
//! (docs/learning.md, "Exporting a policy"). `croupier policy export` checks a file with
//! [`Mlp::from_safetensors`] and embeds it in an agent component, which reads it with the same
//! function and plays [`Mlp::act`]: the masked argmax of the network's output.
//!
//! The file: tensors `layers.{i}.weight` (shape `[outputs, inputs]`, f32) and
//! `layers.{i}.bias` (`[outputs]`, f32) for `i` from 0, each layer's inputs the previous
//! layer's outputs; ReLU between layers (metadata `activation`: `relu`, or `identity` for a
//! linear policy), none after the last. The first layer's inputs are the game's observation
//! vector, the last layer's outputs its action indices. Metadata `game`, `rules`, `players`
//! and `options` (comma-separated `NAME=VALUE`) say what it was trained on.
//!
//! Every value is f32 and every sum is taken in the same order (by input index, the bias
//! last), with no fused multiply-add: the native build and the wasm32 build give the same
//! bits, and so the same action. A tie goes to the lowest action index.

extern crate alloc;

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

/// A layer's activation before the next layer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Activation {
    /// `max(x, 0)`.
    Relu,
    /// `x` (a linear policy, or layers that were merged).
    Identity,
}

/// One dense layer.
#[derive(Clone, Debug)]
struct Layer {
    inputs: usize,
    outputs: usize,
    /// Row-major `[outputs][inputs]`.
    weight: Vec<f32>,
    bias: Vec<f32>,
}

/// A multilayer perceptron.
#[derive(Clone, Debug)]
pub struct Mlp {
    layers: Vec<Layer>,
    activation: Activation,
    metadata: BTreeMap<String, String>,
}

/// Why a file is not a policy; each names the tensor or key at fault.
#[derive(Clone, Debug, PartialEq)]
pub enum PolicyError {
    /// The bytes are not a safetensors file.
    NotSafetensors(String),
    /// No `layers.0.weight`.
    NoLayers,
    /// A layer's weight without its bias (or the other way round).
    MissingTensor(String),
    /// A tensor of another type than f32.
    NotF32 {
        /// The tensor.
        name: String,
        /// Its type.
        dtype: String,
    },
    /// A tensor whose shape does not fit the layers around it.
    Shape {
        /// The tensor.
        name: String,
        /// Its shape.
        shape: Vec<usize>,
        /// What it should be.
        expected: String,
    },
    /// A NaN or infinite value.
    NotFinite {
        /// The tensor.
        name: String,
        /// The value's index.
        index: usize,
    },
    /// A metadata value that is not one of those allowed.
    Metadata {
        /// The key.
        key: String,
        /// The value.
        value: String,
    },
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PolicyError::NotSafetensors(why) => write!(f, "not a safetensors file: {why}"),
            PolicyError::NoLayers => write!(
                f,
                "no tensor `layers.0.weight`: a policy's layers are `layers.0.weight`, `layers.0.bias`, `layers.1.weight`, ..."
            ),
            PolicyError::MissingTensor(name) => write!(f, "tensor `{name}` is missing"),
            PolicyError::NotF32 { name, dtype } => {
                write!(f, "tensor `{name}` is {dtype}, not F32")
            }
            PolicyError::Shape {
                name,
                shape,
                expected,
            } => write!(
                f,
                "tensor `{name}` has shape {shape:?}, expected {expected}"
            ),
            PolicyError::NotFinite { name, index } => {
                write!(
                    f,
                    "tensor `{name}` holds a NaN or infinite value at index {index}"
                )
            }
            PolicyError::Metadata { key, value } => {
                write!(f, "metadata `{key}`: `{value}` is not allowed")
            }
        }
    }
}

impl Mlp {
    /// Reads and checks a policy: every layer present, f32, shaped to chain, every value
    /// finite.
    pub fn from_safetensors(bytes: &[u8]) -> Result<Mlp, PolicyError> {
        let (_, meta) = safetensors::SafeTensors::read_metadata(bytes)
            .map_err(|e| PolicyError::NotSafetensors(format!("{e:?}")))?;
        let metadata: BTreeMap<String, String> = meta
            .metadata()
            .as_ref()
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        let tensors = safetensors::SafeTensors::deserialize(bytes)
            .map_err(|e| PolicyError::NotSafetensors(format!("{e:?}")))?;
        let activation = match metadata.get("activation").map(String::as_str) {
            None | Some("relu") => Activation::Relu,
            Some("identity") => Activation::Identity,
            Some(other) => {
                return Err(PolicyError::Metadata {
                    key: "activation".to_string(),
                    value: other.to_string(),
                });
            }
        };
        let mut layers: Vec<Layer> = Vec::new();
        loop {
            let i = layers.len();
            let (wname, bname) = (format!("layers.{i}.weight"), format!("layers.{i}.bias"));
            let (w, b) = (tensors.tensor(&wname).ok(), tensors.tensor(&bname).ok());
            let (w, b) = match (w, b) {
                (None, None) => break,
                (Some(w), Some(b)) => (w, b),
                (Some(_), None) => return Err(PolicyError::MissingTensor(bname)),
                (None, Some(_)) => return Err(PolicyError::MissingTensor(wname)),
            };
            let weight = floats(&wname, &w)?;
            let bias = floats(&bname, &b)?;
            let [outputs, inputs] = *w.shape() else {
                return Err(PolicyError::Shape {
                    name: wname,
                    shape: w.shape().to_vec(),
                    expected: "[outputs, inputs]".to_string(),
                });
            };
            if let Some(prev) = layers.last()
                && prev.outputs != inputs
            {
                return Err(PolicyError::Shape {
                    name: wname,
                    shape: w.shape().to_vec(),
                    expected: format!("[_, {}] (layer {}'s outputs)", prev.outputs, i - 1),
                });
            }
            if b.shape() != [outputs] || outputs == 0 || inputs == 0 {
                return Err(PolicyError::Shape {
                    name: bname,
                    shape: b.shape().to_vec(),
                    expected: format!("[{outputs}] (the rows of `{wname}`), not empty"),
                });
            }
            layers.push(Layer {
                inputs,
                outputs,
                weight,
                bias,
            });
        }
        if layers.is_empty() {
            return Err(PolicyError::NoLayers);
        }
        Ok(Mlp {
            layers,
            activation,
            metadata,
        })
    }

    /// The observation values it reads.
    pub fn inputs(&self) -> usize {
        self.layers.first().map_or(0, |l| l.inputs)
    }

    /// The action indices it scores.
    pub fn outputs(&self) -> usize {
        self.layers.last().map_or(0, |l| l.outputs)
    }

    /// The layer sizes, inputs first.
    pub fn sizes(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self.layers.iter().map(|l| l.inputs).collect();
        v.push(self.outputs());
        v
    }

    /// Multiply-adds in one forward pass.
    pub fn multiply_adds(&self) -> usize {
        self.layers.iter().map(|l| l.inputs * l.outputs).sum()
    }

    /// The file's metadata (`game`, `rules`, `players`, `options`, ...).
    pub fn metadata(&self) -> &BTreeMap<String, String> {
        &self.metadata
    }

    /// The network's outputs for `x` ([`Mlp::inputs`] values; missing ones count as 0).
    pub fn forward(&self, x: &[f32]) -> Vec<f32> {
        self.outputs_at(x, 0..self.outputs())
    }

    /// Of the `legal` action indices, the one with the highest output; a tie goes to the
    /// lowest index. `None` when no index is legal (or none is an output). Only the legal
    /// outputs are computed: a few rows of the last layer instead of all of them.
    pub fn act(&self, x: &[f32], legal: impl IntoIterator<Item = usize>) -> Option<usize> {
        let legal: Vec<usize> = legal.into_iter().filter(|&i| i < self.outputs()).collect();
        let logits = self.outputs_at(x, legal.iter().copied());
        let mut best: Option<(usize, f32)> = None;
        for (&i, &v) in legal.iter().zip(&logits) {
            if best.is_none_or(|(b, bv)| v > bv || (v == bv && i < b)) {
                best = Some((i, v));
            }
        }
        best.map(|(i, _)| i)
    }

    /// The outputs `rows` (each below [`Mlp::outputs`]) for `x`, in that order.
    fn outputs_at(&self, x: &[f32], rows: impl Iterator<Item = usize>) -> Vec<f32> {
        let Some((last, hidden)) = self.layers.split_last() else {
            return Vec::new();
        };
        // Missing inputs count as 0, so only the nonzero ones are read: no padded copy.
        let mut live = nonzero(&x[..x.len().min(self.inputs())]);
        for layer in hidden {
            let out: Vec<f32> = (0..layer.outputs)
                .map(|r| {
                    let sum = layer.sum(r, &live);
                    if self.activation == Activation::Relu && sum < 0.0 {
                        0.0
                    } else {
                        sum
                    }
                })
                .collect();
            live = nonzero(&out);
        }
        rows.map(|r| last.sum(r, &live)).collect()
    }
}

impl Layer {
    /// Output `row`: the weighted sum of the nonzero inputs in ascending order, then the
    /// bias. An observation is mostly zeros and so is a ReLU layer's output; a finite weight
    /// (the loader refuses others) times zero adds exactly nothing, so this is the dense sum
    /// bit for bit at a fraction of the work.
    fn sum(&self, row: usize, nonzero: &[(usize, f32)]) -> f32 {
        let weights = &self.weight[row * self.inputs..(row + 1) * self.inputs];
        let mut sum = 0.0f32;
        for &(k, v) in nonzero {
            sum += weights[k] * v;
        }
        sum + self.bias[row]
    }
}

/// The nonzero values of `input` with their indices, in order.
fn nonzero(input: &[f32]) -> Vec<(usize, f32)> {
    (input.iter().copied().enumerate())
        .filter(|&(_, v)| v != 0.0)
        .collect()
}

fn floats(name: &str, t: &safetensors::tensor::TensorView<'_>) -> Result<Vec<f32>, PolicyError> {
    if t.dtype() != safetensors::Dtype::F32 {
        return Err(PolicyError::NotF32 {
            name: name.to_string(),
            dtype: format!("{:?}", t.dtype()),
        });
    }
    let values: Vec<f32> = t
        .data()
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    match values.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(PolicyError::NotFinite {
            name: name.to_string(),
            index,
        }),
        None => Ok(values),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The dense sums the sparse ones must equal bit for bit.
    fn dense(mlp: &Mlp, x: &[f32]) -> Vec<f32> {
        let mut input = x.to_vec();
        for (i, layer) in mlp.layers.iter().enumerate() {
            let rows = layer.weight.chunks_exact(layer.inputs).zip(&layer.bias);
            input = rows
                .map(|(row, bias)| {
                    let mut sum = 0.0f32;
                    for (w, v) in row.iter().zip(&input) {
                        sum += w * v;
                    }
                    sum += bias;
                    if i + 1 < mlp.layers.len() && sum < 0.0 {
                        0.0
                    } else {
                        sum
                    }
                })
                .collect();
        }
        input
    }

    #[test]
    fn skipping_zero_inputs_changes_no_output_bit() {
        // A fixed xorshift, so the test needs no crate and fails the same way every time.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut uniform = || (next() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0;
        let sizes = [300usize, 64, 64, 40];
        let layers = sizes
            .windows(2)
            .map(|io| Layer {
                inputs: io[0],
                outputs: io[1],
                weight: (0..io[0] * io[1]).map(|_| uniform() * 0.3).collect(),
                bias: (0..io[1]).map(|_| uniform() * 0.1).collect(),
            })
            .collect();
        let mlp = Mlp {
            layers,
            activation: Activation::Relu,
            metadata: BTreeMap::new(),
        };
        for _ in 0..200 {
            // An observation's kind of input: mostly zeros, some ones, a few fractions.
            let x: Vec<f32> = (0..sizes[0])
                .map(|_| match uniform() {
                    u if u < 0.8 => 0.0,
                    u if u < 0.95 => 1.0,
                    u => u,
                })
                .collect();
            let (got, want) = (mlp.forward(&x), dense(&mlp, &x));
            let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got), bits(&want));
            // `act` computes only the legal rows: the same choice as the dense argmax.
            let legal: Vec<usize> = (0..sizes[3]).filter(|_| uniform() < 0.0).collect();
            let best = legal
                .iter()
                .copied()
                .fold(None, |b: Option<usize>, i| match b {
                    Some(j) if want[j] >= want[i] => Some(j),
                    _ => Some(i),
                });
            assert_eq!(mlp.act(&x, legal.iter().copied()), best);
        }
    }
}
