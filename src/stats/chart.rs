//! `scorecard.svg`: per bot, bars of findings addressed / open at merge / disputed, and below
//! them the overlap matrix as a heat map. Drawn with plotters' SVG backend into a string.
//! Pure.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::score::{BotScore, Scorecard};

/// The bar colours, in bar order (GitHub's green, amber and red).
pub const ADDRESSED: RGBColor = RGBColor(0x2E, 0xA0, 0x43);
pub const OPEN: RGBColor = RGBColor(0xD4, 0xA7, 0x2C);
pub const DISPUTED: RGBColor = RGBColor(0xCF, 0x22, 0x2E);

const FONT: &str = "sans-serif";
/// Sizes as plotters takes them (it writes `font-size` = size / 1.24 into the SVG).
const TITLE_SIZE: f64 = 22.0;
const LABEL_SIZE: f64 = 17.0;
const CELL_SIZE: f64 = 16.0;
/// Bot names longer than this are cut (with `…`) so they fit under their bars.
const NAME_CHARS: usize = 22;

const BAR_HEIGHT: u32 = 380;
const CELL: u32 = 56;
const NAME_MARGIN: u32 = 190;
/// Below the heat map's title, where its column names start.
const HEAT_TOP: i32 = 40;

/// The chart for the bots that showed up (each gets one group of three bars).
pub fn render_svg(card: &Scorecard) -> Result<String, String> {
    let bots: Vec<&BotScore> = card.seen_bots().collect();
    let n = bots.len();
    let width = (NAME_MARGIN + 40 + CELL * n as u32)
        .max(140 + 130 * n as u32)
        .max(640);
    let heat_height = if n > 1 {
        (HEAT_TOP + column_labels_height(&bots)) as u32 + CELL * n as u32 + 30
    } else {
        0
    };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, BAR_HEIGHT + heat_height))
            .into_drawing_area();
        root.fill(&WHITE).map_err(text)?;
        let (bars, heat) = root.split_vertically(BAR_HEIGHT);
        if n == 0 {
            bars.draw(&Text::new(
                "No configured review bot reviewed these pull requests.",
                (20, 40),
                (FONT, LABEL_SIZE),
            ))
            .map_err(text)?;
        } else {
            draw_bars(&bars, &bots, &card.repository)?;
        }
        if n > 1 {
            draw_heat_map(&heat, &bots)?;
        }
        root.present().map_err(text)?;
    }
    Ok(svg)
}

fn text(err: impl std::fmt::Display) -> String {
    format!("cannot draw the scorecard chart: {err}")
}

fn draw_bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    bots: &[&BotScore],
    repository: &str,
) -> Result<(), String> {
    let n = bots.len();
    let highest = bots
        .iter()
        .flat_map(|b| {
            [
                b.findings_addressed,
                b.findings_open_at_merge,
                b.findings_disputed,
            ]
        })
        .max()
        .unwrap_or(0);
    // Integer ticks: findings are counted. Headroom above the tallest bar for the legend.
    let top = ((highest as f64 * 1.2).ceil() as u32).max(highest as u32 + 1);
    let caption = format!("Findings per bot, {}", label(repository, 60));
    let mut chart = ChartBuilder::on(area)
        .caption(caption, (FONT, TITLE_SIZE))
        .margin(14)
        .x_label_area_size(34)
        .y_label_area_size(72)
        .build_cartesian_2d(0f64..n as f64, 0u32..top)
        .map_err(text)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .light_line_style(TRANSPARENT)
        .y_desc("findings")
        .label_style((FONT, LABEL_SIZE))
        .axis_desc_style((FONT, LABEL_SIZE))
        .draw()
        .map_err(text)?;
    let series = [
        ("addressed", ADDRESSED, 0usize),
        ("open at merge", OPEN, 1),
        ("disputed", DISPUTED, 2),
    ];
    for (name, color, slot) in series {
        let rects = bots.iter().enumerate().map(move |(i, bot)| {
            let value = [
                bot.findings_addressed,
                bot.findings_open_at_merge,
                bot.findings_disputed,
            ][slot] as u32;
            let left = i as f64 + 0.14 + slot as f64 * 0.25;
            Rectangle::new([(left, 0), (left + 0.22, value)], color.filled())
        });
        chart
            .draw_series(rects)
            .map_err(text)?
            .label(name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 12, y + 6)], color.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .label_font((FONT, LABEL_SIZE))
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK.mix(0.3))
        .draw()
        .map_err(text)?;
    // Each bot's name centred under its group of bars.
    let below = Pos::new(HPos::Center, VPos::Top);
    for (i, bot) in bots.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(i as f64 + 0.5, 0));
        let style = TextStyle::from((FONT, LABEL_SIZE).into_font()).pos(below);
        area.draw(&Text::new(label(&bot.bot, NAME_CHARS), (x, y + 8), style))
            .map_err(text)?;
    }
    Ok(())
}

fn draw_heat_map<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    bots: &[&BotScore],
) -> Result<(), String> {
    let title = "Overlap: share of the row bot's findings the column bot also raised";
    area.draw(&Text::new(title, (14, 20), (FONT, TITLE_SIZE)))
        .map_err(text)?;
    let left = NAME_MARGIN as i32;
    let top = HEAT_TOP + column_labels_height(bots);
    let cell = CELL as i32;
    let centred = Pos::new(HPos::Center, VPos::Center);
    // Column names read upwards, so long names do not run into each other.
    for (c, column) in bots.iter().enumerate() {
        let style = TextStyle::from((FONT, LABEL_SIZE).into_font())
            .pos(Pos::new(HPos::Left, VPos::Center))
            .transform(FontTransform::Rotate270);
        let x = left + c as i32 * cell + cell / 2;
        area.draw(&Text::new(
            label(&column.bot, NAME_CHARS),
            (x, top - 8),
            style,
        ))
        .map_err(text)?;
    }
    for (r, row) in bots.iter().enumerate() {
        let y = top + r as i32 * cell;
        let style = TextStyle::from((FONT, LABEL_SIZE).into_font())
            .pos(Pos::new(HPos::Right, VPos::Center));
        area.draw(&Text::new(
            label(&row.bot, NAME_CHARS),
            (left - 10, y + cell / 2),
            style,
        ))
        .map_err(text)?;
        for (c, column) in bots.iter().enumerate() {
            let x = left + c as i32 * cell;
            let corners = [(x, y), (x + cell - 2, y + cell - 2)];
            if row.bot == column.bot {
                area.draw(&Rectangle::new(
                    corners,
                    RGBColor(0xEE, 0xEE, 0xEE).filled(),
                ))
                .map_err(text)?;
                continue;
            }
            let share = row.overlap_with(&column.bot).unwrap_or(0.0);
            area.draw(&Rectangle::new(corners, heat(share).filled()))
                .map_err(text)?;
            let ink = if share > 0.55 { WHITE } else { BLACK };
            let style = TextStyle::from((FONT, CELL_SIZE).into_font())
                .pos(centred)
                .color(&ink);
            let words = format!("{:.0}%", share * 100.0);
            area.draw(&Text::new(
                words,
                (x + cell / 2 - 1, y + cell / 2 - 1),
                style,
            ))
            .map_err(text)?;
        }
    }
    Ok(())
}

/// Room for the rotated column names: about 9 px a character at the label size.
fn column_labels_height(bots: &[&BotScore]) -> i32 {
    let longest = bots
        .iter()
        .map(|b| label(&b.bot, NAME_CHARS).chars().count())
        .max()
        .unwrap_or(0);
    16 + 9 * longest as i32
}

/// White (no overlap) to deep blue (every finding also raised by the other bot).
fn heat(share: f64) -> RGBColor {
    let t = share.clamp(0.0, 1.0);
    let mix = |from: f64, to: f64| (from + (to - from) * t).round() as u8;
    RGBColor(mix(255.0, 8.0), mix(255.0, 69.0), mix(255.0, 148.0))
}

/// A bot name (or repository) fit for a label: no control characters, at most `max` chars.
fn label(name: &str, max: usize) -> String {
    let clean: String = name.chars().filter(|c| !c.is_control()).collect();
    if clean.chars().count() <= max {
        clean
    } else {
        let mut cut: String = clean.chars().take(max.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Coverage;
    use crate::stats::record::FindingOutcome::{Addressed, Disputed, Open};
    use crate::stats::score::score;
    use crate::stats::score::tests::{bot, finding, pr, window};

    fn card(names: &[&str]) -> Scorecard {
        let bots = names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let mut findings = vec![finding(Addressed, true, &[]); i + 1];
                findings.push(finding(Open, true, &[]));
                findings.push(finding(Disputed, true, &[]));
                if i > 0 {
                    findings.push(finding(Addressed, true, &[names[0]]));
                }
                bot(name, Coverage::Reviewed, findings)
            })
            .collect();
        score(&window(), &[pr(1, bots)], &[], &[])
    }

    /// `(text, x, y, font-size)` of every `<text>`, and `(fill, x, y, w, h)` of every `<rect>`.
    type Texts = Vec<(String, f64, f64, f64)>;
    type Rects = Vec<(String, f64, f64, f64, f64)>;

    fn parse(svg: &str) -> (Texts, Rects) {
        let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
        let num = |n: roxmltree::Node<'_, '_>, a: &str| {
            n.attribute(a)
                .and_then(|v| v.parse::<f64>().ok())
                .unwrap_or(f64::NAN)
        };
        let texts = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .map(|n| {
                let words: String = n
                    .descendants()
                    .filter(|d| d.is_text())
                    .filter_map(|d| d.text())
                    .collect();
                (
                    words.trim().to_owned(),
                    num(n, "x"),
                    num(n, "y"),
                    num(n, "font-size"),
                )
            })
            .collect();
        let rects = doc
            .descendants()
            .filter(|n| n.has_tag_name("rect"))
            .map(|n| {
                let fill = n.attribute("fill").unwrap_or("").to_uppercase();
                (
                    fill,
                    num(n, "x"),
                    num(n, "y"),
                    num(n, "width"),
                    num(n, "height"),
                )
            })
            .collect();
        (texts, rects)
    }

    fn hex(c: RGBColor) -> String {
        format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
    }

    #[test]
    fn one_group_of_three_bars_under_each_legible_bot_label() {
        let names = ["coderabbit", "copilot", "gemini", "sourcery"];
        let svg = render_svg(&card(&names)).expect("renders");
        let (texts, rects) = parse(&svg);
        let bar_colours = [hex(ADDRESSED), hex(OPEN), hex(DISPUTED)];
        // Bars stand on the x axis; the legend's swatches do not.
        let bars: Vec<_> = rects
            .iter()
            .filter(|r| bar_colours.contains(&r.0))
            .collect();
        let baseline = bars.iter().map(|r| (r.2 + r.4) as i64).max().expect("bars");
        let bars: Vec<_> = bars
            .into_iter()
            .filter(|r| (r.2 + r.4) as i64 == baseline)
            .collect();
        assert_eq!(bars.len(), 3 * names.len(), "three bars per bot");

        let mut label_xs = Vec::new();
        for name in names {
            let labels: Vec<_> = texts
                .iter()
                .filter(|t| t.0 == name && t.2 > baseline as f64 && t.2 < f64::from(BAR_HEIGHT))
                .collect();
            assert_eq!(
                labels.len(),
                1,
                "{name} labelled once under the bars: {texts:?}"
            );
            let (_, x, _, size) = labels[0];
            assert!((11.0..=24.0).contains(size), "{name}: font-size {size}");
            label_xs.push(*x);
        }
        // Each label sits over exactly its own three bars, in bar order.
        let spacing = label_xs[1] - label_xs[0];
        assert!(spacing > 60.0, "labels do not crowd: {label_xs:?}");
        let mut addressed_heights = Vec::new();
        for (i, x) in label_xs.iter().enumerate() {
            let mut group: Vec<_> = bars
                .iter()
                .filter(|r| ((r.1 + r.3 / 2.0) - x).abs() < spacing / 2.0)
                .collect();
            group.sort_by(|a, b| a.1.total_cmp(&b.1));
            let colours: Vec<&str> = group.iter().map(|r| r.0.as_str()).collect();
            assert_eq!(
                colours,
                bar_colours.each_ref().map(String::as_str),
                "bot {i}"
            );
            addressed_heights.push(group[0].4);
        }
        // The heights follow the figures: the bots addressed 1, 3, 4 and 5 findings.
        assert!(
            addressed_heights.windows(2).all(|w| w[0] < w[1]),
            "{addressed_heights:?}"
        );
        for legend in ["addressed", "open at merge", "disputed"] {
            assert!(texts.iter().any(|t| t.0 == legend), "legend {legend}");
        }
    }

    #[test]
    fn the_heat_map_has_a_cell_per_pair_with_its_share() {
        let svg = render_svg(&card(&["alpha", "beta", "gamma"])).expect("renders");
        let (texts, _) = parse(&svg);
        // beta's 5 findings: 1 also raised by alpha = 20%; gamma's 6: 1 = 17%.
        assert!(texts.iter().any(|t| t.0 == "20%"), "{texts:?}");
        assert!(texts.iter().any(|t| t.0 == "17%"), "{texts:?}");
        let percents = texts.iter().filter(|t| t.0.ends_with('%')).count();
        assert_eq!(percents, 3 * 2, "n * (n - 1) off-diagonal cells");
        assert!(texts.iter().any(|t| t.0.starts_with("Overlap")));
    }

    #[test]
    fn hostile_names_stay_text() {
        let svg = render_svg(&card(&["<script>x</script>", "a\u{7}b"])).expect("renders");
        let (texts, _) = parse(&svg);
        assert!(!svg.contains("<script>"));
        assert!(texts.iter().any(|t| t.0 == "<script>x</script>"));
        assert!(
            texts.iter().any(|t| t.0 == "ab"),
            "control characters dropped"
        );
    }

    #[test]
    fn no_bot_seen_is_said_in_words() {
        let svg = render_svg(&score(&window(), &[], &["alpha".to_owned()], &[])).expect("renders");
        assert!(svg.contains("No configured review bot"));
    }
}
