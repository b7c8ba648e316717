package dev.chorus.testnet;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.Stroke;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * A PNG line chart of accuracy against wall-clock time: per run, in one colour, the mean over nodes as a solid line
 * and the worst node as a thin dashed one. The mean alone (or the median) hides a node that the averaging left
 * behind, which a consortium's member would not accept.
 */
public final class AccuracyPlot {

    private static final int WIDTH = 960;
    private static final int HEIGHT = 600;
    private static final int LEFT = 80;
    private static final int RIGHT = 220;
    private static final int TOP = 50;
    private static final int BOTTOM = 70;
    private static final Color[] COLORS = {
        new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e),
        new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f),
        new Color(0xbcbd22), new Color(0x17becf)
    };

    private AccuracyPlot() {}

    static BufferedImage render(List<TestnetRun> runs, double target, String title) {
        BufferedImage img = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, WIDTH, HEIGHT);
            Axes axes = Axes.of(runs, target);
            Font font = new Font(Font.SANS_SERIF, Font.PLAIN, 13);
            g.setFont(font);
            drawGrid(g, axes);
            drawTitles(g, font, axes, title);
            drawTarget(g, axes, target);
            drawRuns(g, axes, runs);
        } finally {
            g.dispose();
        }
        return img;
    }

    /**
     * The plot area and its scales: time from 0 to {@code tMax} seconds across, accuracy from {@code yLo} to {@code
     * yHi} up.
     *
     * @param pw the plot area's width in pixels
     * @param ph the plot area's height in pixels
     */
    private record Axes(double tMax, double yLo, double yHi, int pw, int ph) {

        /** Axes that hold every run's ticks and its worst node's accuracies (so its mean's too), and the target. */
        static Axes of(List<TestnetRun> runs, double target) {
            double tMax = 1;
            double aMin = 1;
            for (TestnetRun r : runs) {
                for (double t : r.scores().ticks()) {
                    tMax = Math.max(tMax, t);
                }
                for (double a : r.worstAccuracyPerTick()) {
                    if (!Double.isNaN(a)) {
                        aMin = Math.min(aMin, a);
                    }
                }
            }
            aMin = Math.min(aMin, target);
            double yLo = Math.max(0, Math.floor(aMin * 10 - 0.5) / 10);
            return new Axes(tMax, yLo, 1.0, WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
        }

        int x(double t) {
            return LEFT + (int) Math.round(pw * t / tMax);
        }

        int y(double a) {
            return TOP + ph - (int) Math.round(ph * (a - yLo) / (yHi - yLo));
        }
    }

    /** Grid lines with their accuracy and time labels, and the plot area's frame. */
    private static void drawGrid(Graphics2D g, Axes axes) {
        FontMetrics fm = g.getFontMetrics();
        int pw = axes.pw();
        int ph = axes.ph();
        g.setStroke(new BasicStroke(1));
        for (int i = 0; i <= 5; i++) {
            double a = axes.yLo() + (axes.yHi() - axes.yLo()) * i / 5;
            int y = axes.y(a);
            g.setColor(new Color(0xe0e0e0));
            g.drawLine(LEFT, y, LEFT + pw, y);
            g.setColor(Color.DARK_GRAY);
            String s = String.format(Locale.ROOT, "%.2f", a);
            g.drawString(s, LEFT - 8 - fm.stringWidth(s), y + fm.getAscent() / 2 - 1);
        }
        double step = niceStep(axes.tMax() / 6);
        for (double t = 0; t <= axes.tMax() + 1e-9; t += step) {
            int x = axes.x(t);
            g.setColor(new Color(0xe0e0e0));
            g.drawLine(x, TOP, x, TOP + ph);
            g.setColor(Color.DARK_GRAY);
            String s = String.format(Locale.ROOT, step < 1 ? "%.1f" : "%.0f", t);
            g.drawString(s, x - fm.stringWidth(s) / 2, TOP + ph + fm.getHeight() + 2);
        }
        g.setColor(Color.BLACK);
        g.drawRect(LEFT, TOP, pw, ph);
    }

    /** The axis titles and the chart's title. */
    private static void drawTitles(Graphics2D g, Font font, Axes axes, String title) {
        FontMetrics fm = g.getFontMetrics();
        String xl = "wall-clock time (s)";
        g.drawString(xl, LEFT + axes.pw() / 2 - fm.stringWidth(xl) / 2, HEIGHT - 20);
        Graphics2D gr = (Graphics2D) g.create();
        gr.rotate(-Math.PI / 2);
        String yl = "test accuracy";
        gr.drawString(yl, -(TOP + axes.ph() / 2) - fm.stringWidth(yl) / 2, 22);
        gr.dispose();
        g.setFont(font.deriveFont(Font.BOLD, 15f));
        g.drawString(title, LEFT, TOP - 18);
        g.setFont(font);
    }

    /** The target accuracy as a dashed line. */
    private static void drawTarget(Graphics2D g, Axes axes, double target) {
        int ty = axes.y(target);
        g.setColor(Color.GRAY);
        g.setStroke(new BasicStroke(1, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {6, 4}, 0));
        g.drawLine(LEFT, ty, LEFT + axes.pw(), ty);
        g.drawString(String.format(Locale.ROOT, "target %.2f", target), LEFT + 6, ty - 4);
    }

    /**
     * Per run, in its colour, the mean over nodes (solid, with a dot at each evaluation) and the worst node (thin,
     * dashed); the legend names the runs, then says which line is which.
     */
    private static void drawRuns(Graphics2D g, Axes axes, List<TestnetRun> runs) {
        Stroke mean = new BasicStroke(2.2f);
        Stroke worst = new BasicStroke(1.2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10, new float[] {5, 4}, 0);
        int lx = LEFT + axes.pw() + 12;
        for (int r = 0; r < runs.size(); r++) {
            TestnetRun run = runs.get(r);
            g.setColor(COLORS[r % COLORS.length]);
            drawCurve(g, axes, run.scores().ticks(), run.worstAccuracyPerTick(), worst, false);
            drawCurve(g, axes, run.scores().ticks(), run.meanAccuracyPerTick(), mean, true);
            int ly = TOP + 24 + r * 22;
            g.setStroke(mean);
            g.drawLine(lx, ly, lx + 28, ly);
            g.setColor(Color.BLACK);
            g.drawString(run.label(), lx + 34, ly + 5);
        }
        int ky = TOP + 24 + runs.size() * 22 + 14;
        g.setColor(Color.DARK_GRAY);
        g.setStroke(mean);
        g.drawLine(lx, ky, lx + 28, ky);
        g.drawString("mean over nodes", lx + 34, ky + 5);
        g.setStroke(worst);
        g.drawLine(lx, ky + 22, lx + 28, ky + 22);
        g.drawString("worst node", lx + 34, ky + 27);
    }

    /** One curve through the rounds where {@code values} is defined (not NaN: every node scored). */
    private static void drawCurve(
            Graphics2D g, Axes axes, double[] ticks, double[] values, Stroke stroke, boolean dots) {
        g.setStroke(stroke);
        int px = -1, py = -1;
        for (int k = 0; k < values.length; k++) {
            if (Double.isNaN(values[k])) {
                continue;
            }
            int x = axes.x(ticks[k]);
            int y = axes.y(Math.max(axes.yLo(), values[k]));
            if (px >= 0) {
                g.drawLine(px, py, x, y);
            }
            if (dots) {
                g.fillOval(x - 2, y - 2, 5, 5);
            }
            px = x;
            py = y;
        }
    }

    private static double niceStep(double raw) {
        double p = Math.pow(10, Math.floor(Math.log10(raw)));
        for (double m : new double[] {1, 2, 5, 10}) {
            if (m * p >= raw) {
                return m * p;
            }
        }
        return 10 * p;
    }

    static void write(BufferedImage img, Path file) throws IOException {
        if (!ImageIO.write(img, "png", file.toFile())) {
            throw new IOException("no PNG writer available");
        }
    }
}
