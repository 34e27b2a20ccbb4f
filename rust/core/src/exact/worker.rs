//! The threads exact evaluations run on, kept between calls.
//!
//! An evaluation too big to finish on the calling thread within a millisecond
//! or two runs off it, so that the caller can poll for Ctrl-C while it runs
//! ([`super::evaluate_polled`]). Starting a thread for each call cost tens
//! of microseconds, so a thread that has finished an evaluation waits,
//! parked, for the next one; at most [`MAX_IDLE`] wait, and more are started
//! when calls overlap.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Mutex, PoisonError};

/// Parked threads kept for later calls (one per caller that evaluates at
/// the same time as others, up to this many).
const MAX_IDLE: usize = 4;

type Job = Box<dyn FnOnce() + Send>;

/// A thread that runs the jobs sent to it, one at a time, until its sender
/// is dropped.
pub(super) struct Worker {
    jobs: Sender<Job>,
}

/// The parked workers, and the process they were started in: a child made
/// by `fork` has none of its parent's threads, so it must not wait on them.
static IDLE: Mutex<(u32, Vec<Worker>)> = Mutex::new((0, Vec::new()));

/// Run `job` on a parked worker (or a new one) and return where its result
/// (or its panic) arrives, with the worker to hand back once it has. `None`
/// when no thread could be started.
pub(super) fn start<T: Send + 'static>(
    job: impl FnOnce() -> T + Send + 'static,
) -> Option<(Receiver<std::thread::Result<T>>, Worker)> {
    let (done, result) = mpsc::channel();
    let job: Job = Box::new(move || {
        // The caller may have gone (it never does before the result comes).
        let _ = done.send(catch_unwind(AssertUnwindSafe(job)));
    });
    let worker = parked().or_else(spawn)?;
    match worker.jobs.send(job) {
        Ok(()) => Some((result, worker)),
        // Its thread is gone (it never ends while its sender is kept).
        Err(mpsc::SendError(job)) => {
            let worker = spawn()?;
            worker.jobs.send(job).ok()?;
            Some((result, worker))
        }
    }
}

/// Park `worker` for a later call, unless enough are parked already (then
/// its thread ends).
pub(super) fn park(worker: Worker) {
    let mut idle = IDLE.lock().unwrap_or_else(PoisonError::into_inner);
    if idle.0 == std::process::id() && idle.1.len() < MAX_IDLE {
        idle.1.push(worker);
    }
}

fn parked() -> Option<Worker> {
    let mut idle = IDLE.lock().unwrap_or_else(PoisonError::into_inner);
    let pid = std::process::id();
    if idle.0 != pid {
        // Started in another process (before a fork): their threads are not
        // here. Forget them without dropping anything they own.
        std::mem::forget(std::mem::take(&mut idle.1));
        idle.0 = pid;
    }
    idle.1.pop()
}

fn spawn() -> Option<Worker> {
    let (jobs, queue) = mpsc::channel::<Job>();
    std::thread::Builder::new()
        .name("mathhammer-exact".to_string())
        .spawn(move || {
            for job in queue {
                job();
            }
        })
        .ok()?;
    Some(Worker { jobs })
}
