package dev.chorus.testnet.soak;

import dev.chorus.testnet.soak.SoakSample.Metric;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * A PNG of a soak: each resource summed over the nodes, as a percentage of its value at the end of the warm-up,
 * against minutes; the band of the tolerance shaded, the warm-up marked. A leak climbs out of the band; a flat line
 * at 100% is what a node that runs for months must draw.
 */
public final class SoakPlot {

    private static final int WIDTH = 960;
    private static final int HEIGHT = 540;
    private static final int LEFT = 70;
    private static final int RIGHT = 200;
    private static final int TOP = 50;
    private static final int BOTTOM = 60;
    private static final Color[] COLORS = {
        new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e)
    };

    private SoakPlot() {}

    /** Writes the plot of {@code samples} to {@code file}; nothing when no round lies past the warm-up. */
    public static void write(List<SoakSample> samples, double warmupMinutes, double tolerance, Path file)
            throws IOException {
        Map<Double, List<SoakSample>> rounds = SoakJudge.rounds(samples);
        List<Double> minutes = new ArrayList<>(rounds.keySet());
        Double ref =
                minutes.stream().filter(m -> m >= warmupMinutes).findFirst().orElse(null);
        if (ref == null) {
            return;
        }
        double tMax = Math.max(1, minutes.getLast());
        double yLo = 100 * (1 - 2 * tolerance);
        double yHi = 100 * (1 + 2 * tolerance);
        List<double[]> lines = new ArrayList<>();
        for (Metric m : Metric.values()) {
            double base = SoakJudge.sum(rounds.get(ref), m);
            double[] y = new double[minutes.size()];
            for (int i = 0; i < y.length; i++) {
                y[i] = base > 0 ? 100 * SoakJudge.sum(rounds.get(minutes.get(i)), m) / base : 100;
                yLo = Math.min(yLo, Math.floor(y[i] / 10) * 10);
                yHi = Math.max(yHi, Math.ceil(y[i] / 10) * 10);
            }
            lines.add(y);
        }
        BufferedImage img = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, WIDTH, HEIGHT);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
            Scale s = new Scale(tMax, yLo, yHi);
            g.setColor(new Color(0xe8f4e8));
            g.fillRect(
                    LEFT,
                    s.y(100 * (1 + tolerance)),
                    WIDTH - LEFT - RIGHT,
                    s.y(100 * (1 - tolerance)) - s.y(100 * (1 + tolerance)));
            drawAxes(
                    g,
                    s,
                    warmupMinutes,
                    samples.stream().mapToInt(SoakSample::node).max().orElse(-1) + 1);
            for (int k = 0; k < lines.size(); k++) {
                g.setColor(COLORS[k]);
                g.setStroke(new BasicStroke(2f));
                double[] y = lines.get(k);
                for (int i = 1; i < y.length; i++) {
                    g.drawLine(s.x(minutes.get(i - 1)), s.y(y[i - 1]), s.x(minutes.get(i)), s.y(y[i]));
                }
                g.drawString(Metric.values()[k].label(), WIDTH - RIGHT + 15, TOP + 20 + 22 * k);
            }
        } finally {
            g.dispose();
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        ImageIO.write(img, "png", file.toFile());
    }

    private static void drawAxes(Graphics2D g, Scale s, double warmupMinutes, int nodes) {
        g.setColor(Color.BLACK);
        g.drawString(
                String.format(
                        Locale.ROOT,
                        "soak of %d nodes: each resource summed over the nodes, %% of its value after the warm-up",
                        nodes),
                LEFT,
                TOP - 20);
        g.drawString("minutes", LEFT + (WIDTH - LEFT - RIGHT) / 2 - 25, HEIGHT - 15);
        g.setColor(new Color(0xdddddd));
        g.setStroke(new BasicStroke(1f));
        double yStep = (s.yHi - s.yLo) > 60 ? 20 : 10;
        for (double v = Math.ceil(s.yLo / yStep) * yStep; v <= s.yHi; v += yStep) {
            g.setColor(new Color(0xdddddd));
            g.drawLine(LEFT, s.y(v), WIDTH - RIGHT, s.y(v));
            g.setColor(Color.DARK_GRAY);
            g.drawString(String.format(Locale.ROOT, "%.0f%%", v), LEFT - 45, s.y(v) + 5);
        }
        double tStep = s.tMax > 60 ? 15 : (s.tMax > 20 ? 5 : 1);
        for (double t = 0; t <= s.tMax; t += tStep) {
            g.setColor(Color.DARK_GRAY);
            g.drawString(String.format(Locale.ROOT, "%.0f", t), s.x(t) - 6, HEIGHT - BOTTOM + 18);
        }
        g.setColor(Color.GRAY);
        g.setStroke(new BasicStroke(1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
        g.drawLine(s.x(warmupMinutes), TOP, s.x(warmupMinutes), HEIGHT - BOTTOM);
        g.drawString("warm-up", s.x(warmupMinutes) + 4, TOP + 14);
        g.setColor(Color.BLACK);
        g.setStroke(new BasicStroke(1f));
        g.drawRect(LEFT, TOP, WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
    }

    /** Minutes from 0 to {@code tMax} across, percent from {@code yLo} to {@code yHi} up. */
    private record Scale(double tMax, double yLo, double yHi) {
        int x(double t) {
            return LEFT + (int) Math.round((WIDTH - LEFT - RIGHT) * t / tMax);
        }

        int y(double v) {
            return HEIGHT - BOTTOM - (int) Math.round((HEIGHT - TOP - BOTTOM) * (v - yLo) / (yHi - yLo));
        }
    }
}
