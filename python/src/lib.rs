//! `croupier._native`: the Python extension. A thin layer over `croupier-learn` (the
//! environments) and `croupier-cli` (the `croupier` command, so that the wheel ships the
//! compiled code once): argument conversion, NumPy arrays, the GIL, and errors as Python
//! exceptions. The Python package `croupier.env` wraps it in PettingZoo's API.

use croupier_learn::EnvError;
use croupier_learn::batch::{AnyBatch, BatchArgs, Outputs};
use croupier_learn::opponents::{Foreign, ForeignSeat, Opponent};
use croupier_learn::table::AnyTable;
use croupier_tournament::matches::RulesArgs;
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::sync::{Arc, Mutex};

// The allocator of the `croupier` binary, for the same reason (cli/src/main.rs): the module is
// that binary too. Python's own objects keep Python's allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

pyo3::create_exception!(
    _native,
    IllegalActionError,
    PyValueError,
    "An action that is not legal now; the message names the environment, the action and the legal ones."
);

pyo3::create_exception!(
    _native,
    OpponentError,
    PyRuntimeError,
    "A Python opponent raised; its seat played its first legal action and the batch stepped on. `args` are the message and the call's outputs."
);

fn py_err(e: EnvError) -> PyErr {
    match e {
        EnvError::Illegal { .. } => IllegalActionError::new_err(e.to_string()),
        EnvError::Over | EnvError::Host(_) => PyRuntimeError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

fn rules_args(rules: Option<String>, players: Option<usize>, options: Vec<String>) -> RulesArgs {
    RulesArgs {
        rules,
        players,
        set: options,
    }
}

/// One game, every seat driven from Python (the core of the AEC environments).
#[pyclass(module = "croupier._native", name = "Table", unsendable)]
struct Table {
    inner: Box<dyn AnyTable>,
}

#[pymethods]
impl Table {
    #[new]
    #[pyo3(signature = (game, rules=None, players=None, options=Vec::new()))]
    fn new(
        game: &str,
        rules: Option<String>,
        players: Option<usize>,
        options: Vec<String>,
    ) -> PyResult<Self> {
        let inner = croupier_learn::table::table(game, &rules_args(rules, players, options))
            .map_err(py_err)?;
        Ok(Table { inner })
    }
    #[getter]
    fn game(&self) -> &'static str {
        self.inner.game()
    }
    #[getter]
    fn obs_len(&self) -> usize {
        self.inner.shape().obs_len
    }
    #[getter]
    fn num_actions(&self) -> usize {
        self.inner.shape().num_actions
    }
    #[getter]
    fn seats(&self) -> usize {
        self.inner.shape().seats
    }
    fn reset(&mut self, seed: u64) -> PyResult<()> {
        self.inner.reset(seed).map_err(py_err)
    }
    fn to_act(&self) -> Option<u8> {
        self.inner.to_act()
    }
    fn observe<'py>(&self, py: Python<'py>, seat: u8) -> PyResult<Bound<'py, PyArray1<f32>>> {
        if seat as usize >= self.inner.shape().seats {
            return Err(PyValueError::new_err(format!(
                "seat {seat}: the table has seats 0..{}",
                self.inner.shape().seats
            )));
        }
        let mut v = vec![0.0f32; self.inner.shape().obs_len];
        self.inner.observe(seat, &mut v);
        Ok(PyArray1::from_vec(py, v))
    }
    fn mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        let mut v = vec![0i8; self.inner.shape().num_actions];
        self.inner.mask(&mut v);
        PyArray1::from_vec(py, v)
    }
    fn legal(&self) -> Vec<usize> {
        self.inner.legal()
    }
    fn step(&mut self, action: i64) -> PyResult<()> {
        self.inner.step(action).map_err(py_err)
    }
    fn rewards(&self) -> Option<Vec<f32>> {
        self.inner.rewards()
    }
    fn aborted(&self) -> bool {
        self.inner.aborted()
    }
    fn summary(&self) -> Option<String> {
        self.inner.summary()
    }
    fn observation_json(&self, seat: u8) -> String {
        self.inner.observation_json(seat)
    }
    fn legal_codes(&self) -> Vec<u32> {
        self.inner.legal_codes()
    }
    fn index_of_code(&self, code: u32) -> Option<usize> {
        self.inner.index_of_code(code)
    }
    fn action_text(&self, index: usize) -> Option<String> {
        self.inner.action_text(index)
    }
    /// The observation vector's sections as `(name, offset, length)`.
    fn layout(&self) -> Vec<(&'static str, usize, usize)> {
        self.inner
            .layout()
            .into_iter()
            .map(|s| (s.name, s.offset, s.len))
            .collect()
    }
    fn options(&self) -> Vec<(String, String)> {
        self.inner.option_pairs()
    }
    /// The action index agent `spec` chooses for the seat to act (nothing is applied).
    fn ask(&mut self, py: Python<'_>, spec: &str) -> PyResult<usize> {
        let inner = &mut self.inner;
        py.detach(|| inner.ask(spec)).map_err(py_err)
    }
}

/// A Python opponent: `factory(seat, players, preset, rules, seed, args)` returns a
/// `decide(observation_json, legal_codes) -> code` callable for one game. The first exception
/// it raises is kept for [`Batch::step`] to raise.
struct PyForeign {
    factory: Py<PyAny>,
    error: Arc<Mutex<Option<String>>>,
}

struct PySeat {
    decide: Py<PyAny>,
    error: Arc<Mutex<Option<String>>>,
}

fn keep(error: &Mutex<Option<String>>, e: String) -> String {
    if let Ok(mut slot) = error.lock()
        && slot.is_none()
    {
        *slot = Some(e.clone());
    }
    e
}

impl Foreign for PyForeign {
    fn start(
        &self,
        info: &croupier_host::player::StartInfo,
    ) -> Result<Box<dyn ForeignSeat>, String> {
        Python::attach(|py| {
            let rules: Vec<(String, String)> = info.rules.all.iter().cloned().collect();
            let args = (
                info.seat,
                info.players,
                info.rules.preset.to_string(),
                rules,
                info.seed,
                info.args.clone(),
            );
            let decide = self
                .factory
                .call1(py, args)
                .map_err(|e| keep(&self.error, format!("opponent start: {e}")))?;
            Ok(Box::new(PySeat {
                decide,
                error: self.error.clone(),
            }) as Box<dyn ForeignSeat>)
        })
    }
}

impl ForeignSeat for PySeat {
    fn decide(&mut self, observation: &str, legal: &[u32]) -> Result<u32, String> {
        Python::attach(|py| {
            let code = self
                .decide
                .call1(py, (observation, legal.to_vec()))
                .and_then(|c| c.extract::<u32>(py));
            code.map_err(|e| keep(&self.error, format!("opponent decide: {e}")))
        })
    }
}

/// Many games, the learner's seat driven with arrays, the opponents inside.
#[pyclass(module = "croupier._native", name = "Batch")]
struct Batch {
    // A Mutex only so that the class is `Sync`: every method that steps has `&mut self`, and
    // `get_mut` takes no lock.
    inner: Mutex<Box<dyn AnyBatch>>,
    obs: Vec<f32>,
    mask: Vec<i8>,
    reward: Vec<f32>,
    terminated: Vec<bool>,
    truncated: Vec<bool>,
    foreign_error: Arc<Mutex<Option<String>>>,
    num_envs: usize,
    game: &'static str,
    shape: croupier_learn::Shape,
}

/// The batch behind its lock (a panic inside a step leaves it usable: every step checks its
/// actions first and writes every output).
fn unpoisoned(m: &mut Mutex<Box<dyn AnyBatch>>) -> &mut dyn AnyBatch {
    match m.get_mut() {
        Ok(inner) => inner.as_mut(),
        Err(poisoned) => poisoned.into_inner().as_mut(),
    }
}

type StepArrays<'py> = Bound<'py, PyTuple>;

impl Batch {
    fn batch(&mut self) -> &mut dyn AnyBatch {
        unpoisoned(&mut self.inner)
    }

    fn outputs(&mut self) -> (&mut dyn AnyBatch, Outputs<'_>) {
        (
            unpoisoned(&mut self.inner),
            Outputs {
                obs: &mut self.obs,
                mask: &mut self.mask,
                reward: &mut self.reward,
                terminated: &mut self.terminated,
                truncated: &mut self.truncated,
            },
        )
    }

    fn arrays<'py>(&self, py: Python<'py>) -> PyResult<StepArrays<'py>> {
        let (n, shape) = (self.num_envs, &self.shape);
        let obs = PyArray1::from_slice(py, &self.obs).reshape([n, shape.obs_len])?;
        let mask = PyArray1::from_slice(py, &self.mask).reshape([n, shape.num_actions])?;
        let reward = PyArray1::from_slice(py, &self.reward);
        let terminated = PyArray1::from_slice(py, &self.terminated);
        let truncated = PyArray1::from_slice(py, &self.truncated);
        PyTuple::new(
            py,
            [
                obs.into_any(),
                mask.into_any(),
                reward.into_any(),
                terminated.into_any(),
                truncated.into_any(),
            ],
        )
    }

    /// The outputs, or the first exception a Python opponent raised with the outputs in it.
    fn finish<'py>(&self, py: Python<'py>) -> PyResult<StepArrays<'py>> {
        let arrays = self.arrays(py)?;
        match self.foreign_error.lock().ok().and_then(|mut e| e.take()) {
            Some(e) => Err(OpponentError::new_err((
                format!("{e} (the seat played its first legal action instead; the batch goes on)"),
                arrays.unbind(),
            ))),
            None => Ok(arrays),
        }
    }
}

#[pymethods]
impl Batch {
    /// `opponents`: a list of `(spec, weight)` where spec is a name or file (str) or a Python
    /// factory (callable).
    #[new]
    #[pyo3(signature = (game, opponents, rules=None, players=None, options=Vec::new(), num_envs=1, seed=0, threads=1))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        game: &str,
        opponents: Vec<(Bound<'_, PyAny>, f64)>,
        rules: Option<String>,
        players: Option<usize>,
        options: Vec<String>,
        num_envs: usize,
        seed: u64,
        threads: usize,
    ) -> PyResult<Self> {
        let foreign_error = Arc::new(Mutex::new(None));
        let mut specs = Vec::with_capacity(opponents.len());
        for (spec, weight) in opponents {
            let opponent = if let Ok(name) = spec.extract::<String>() {
                Opponent::Named(name)
            } else if spec.is_callable() {
                Opponent::Foreign(Arc::new(PyForeign {
                    factory: spec.unbind(),
                    error: foreign_error.clone(),
                }))
            } else {
                return Err(PyValueError::new_err(format!(
                    "opponents: {} is neither an agent's name or file (str) nor a callable",
                    spec.repr()?
                )));
            };
            specs.push((opponent, weight));
        }
        let rules = rules_args(rules, players, options);
        let args = BatchArgs {
            num_envs,
            seed,
            threads,
            opponents: specs,
        };
        let game = game.to_string();
        // Loading a component opponent compiles it: let other Python threads run meanwhile.
        let inner = py
            .detach(|| croupier_learn::batch::batch(&game, &rules, &args))
            .map_err(py_err)?;
        let shape = inner.shape().clone();
        Ok(Batch {
            num_envs,
            game: inner.game(),
            obs: vec![0.0; num_envs * shape.obs_len],
            mask: vec![0; num_envs * shape.num_actions],
            reward: vec![0.0; num_envs],
            terminated: vec![false; num_envs],
            truncated: vec![false; num_envs],
            shape,
            inner: Mutex::new(inner),
            foreign_error,
        })
    }
    #[getter]
    fn game(&self) -> &'static str {
        self.game
    }
    #[getter]
    fn num_envs(&self) -> usize {
        self.num_envs
    }
    #[getter]
    fn obs_len(&self) -> usize {
        self.shape.obs_len
    }
    #[getter]
    fn num_actions(&self) -> usize {
        self.shape.num_actions
    }
    #[getter]
    fn seats(&self) -> usize {
        self.shape.seats
    }
    #[getter]
    fn faults(&mut self) -> u64 {
        self.batch().faults()
    }
    #[getter]
    fn unasked_games(&mut self) -> u64 {
        self.batch().unasked_games()
    }
    #[getter]
    fn games(&mut self) -> u64 {
        self.batch().games()
    }
    #[pyo3(signature = (seed=None))]
    fn reset<'py>(&mut self, py: Python<'py>, seed: Option<u64>) -> PyResult<StepArrays<'py>> {
        py.detach(|| {
            let (inner, out) = self.outputs();
            inner.reset(seed, out)
        })
        .map_err(py_err)?;
        self.finish(py)
    }
    /// What agent `spec` would choose in each learner's seat now (-1 where it faults).
    fn ask<'py>(&mut self, py: Python<'py>, spec: &str) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let mut out = vec![-1i64; self.num_envs];
        py.detach(|| self.batch().ask(spec, &mut out))
            .map_err(py_err)?;
        Ok(PyArray1::from_vec(py, out))
    }
    /// `actions`: int64, one per environment (the Python layer checks shape and dtype).
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: PyReadonlyArray1<'py, i64>,
    ) -> PyResult<StepArrays<'py>> {
        let actions = actions
            .as_slice()
            .map_err(|e| PyValueError::new_err(format!("actions: {e}")))?
            .to_vec();
        py.detach(|| {
            let (inner, out) = self.outputs();
            inner.step(&actions, out)
        })
        .map_err(py_err)?;
        self.finish(py)
    }
}

/// Plays games and keeps every real decision of the agents in `keep` (all when empty): a
/// dict of NumPy arrays `obs`, `mask`, `action`, `agent`, `seat`, `game`, `result`, and the
/// count of `faults`.
#[pyfunction]
#[pyo3(signature = (game, agents, games, seed=0, rules=None, players=None, options=Vec::new(), keep=Vec::new(), threads=1))]
#[allow(clippy::too_many_arguments)]
fn record<'py>(
    py: Python<'py>,
    game: &str,
    agents: Vec<String>,
    games: usize,
    seed: u64,
    rules: Option<String>,
    players: Option<usize>,
    options: Vec<String>,
    keep: Vec<usize>,
    threads: usize,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    let rules = rules_args(rules, players, options);
    let args = croupier_learn::record::RecordArgs {
        agents,
        keep,
        games,
        seed,
        threads,
    };
    let game = game.to_string();
    let r = py
        .detach(|| croupier_learn::record::record(&game, &rules, &args))
        .map_err(py_err)?;
    let rows = r.action.len();
    let d = pyo3::types::PyDict::new(py);
    d.set_item(
        "obs",
        PyArray1::from_vec(py, r.obs).reshape([rows, r.obs_len])?,
    )?;
    d.set_item(
        "mask",
        PyArray1::from_vec(py, r.mask).reshape([rows, r.num_actions])?,
    )?;
    d.set_item("action", PyArray1::from_vec(py, r.action))?;
    d.set_item("agent", PyArray1::from_vec(py, r.agent))?;
    d.set_item("seat", PyArray1::from_vec(py, r.seat))?;
    d.set_item("game", PyArray1::from_vec(py, r.game))?;
    d.set_item("result", PyArray1::from_vec(py, r.result))?;
    d.set_item("faults", r.faults)?;
    Ok(d)
}

/// Runs the `croupier` command line with `args` (the program's name first) and ends the
/// process with its exit code, as the binary does.
#[pyfunction]
fn cli_main(py: Python<'_>, args: Vec<String>) {
    let code = py.detach(|| croupier_cli::run(args.into_iter().map(Into::into)));
    // `ExitCode` shows no number on stable Rust (`exit_process` is unstable), but compares.
    let number = (0..=u8::MAX)
        .find(|n| std::process::ExitCode::from(*n) == code)
        .unwrap_or(1);
    std::process::exit(i32::from(number))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Table>()?;
    m.add_class::<Batch>()?;
    m.add_function(wrap_pyfunction!(cli_main, m)?)?;
    m.add_function(wrap_pyfunction!(record, m)?)?;
    m.add(
        "IllegalActionError",
        m.py().get_type::<IllegalActionError>(),
    )?;
    m.add("OpponentError", m.py().get_type::<OpponentError>())?;
    m.add("GAMES", croupier_learn::games())?;
    Ok(())
}
