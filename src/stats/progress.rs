//! Progress over the merged PRs on stderr: a bar on a terminal, plain lines elsewhere (the
//! Actions log shows a redrawn bar as garbage), about one line per tenth of the way.

use std::io::Write;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

pub enum Progress {
    Bar(ProgressBar),
    Lines {
        total: usize,
        done: usize,
        cached: usize,
        every: usize,
    },
}

impl Progress {
    /// A bar when stderr is a terminal outside Actions, else lines.
    pub fn new(total: usize, terminal: bool, in_actions: bool) -> Progress {
        if terminal && !in_actions {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template(
                "{spinner} reading merged PRs [{bar:30}] {pos}/{len} {msg} ({eta} left)",
            )
            .map(|s| s.progress_chars("=> "))
            .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            Progress::Bar(bar)
        } else {
            Progress::Lines {
                total,
                done: 0,
                cached: 0,
                every: total.div_ceil(10).max(1),
            }
        }
    }

    /// One PR done, read from GitHub or taken from the cache.
    pub fn advance(&mut self, number: u64, from_cache: bool) {
        match self {
            Progress::Bar(bar) => {
                bar.set_message(format!("#{number}"));
                bar.inc(1);
            }
            Progress::Lines {
                total,
                done,
                cached,
                every,
            } => {
                *done += 1;
                *cached += usize::from(from_cache);
                if *done % *every == 0 || done == total {
                    line(&format!(
                        "stats: {done}/{total} merged pull requests ({cached} from the cache)"
                    ));
                }
            }
        }
    }

    pub fn finish(&self) {
        if let Progress::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }

    /// A message that must not tear the bar.
    pub fn say(&self, text: &str) {
        match self {
            Progress::Bar(bar) => bar.suspend(|| line(text)),
            Progress::Lines { .. } => line(text),
        }
    }
}

fn line(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}
