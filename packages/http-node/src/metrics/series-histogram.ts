import type { Registry } from "prom-client";

/** One labelled series of a `SeriesHistogram`, bound once: observing is a bucket search and three additions. */
export interface HistogramSeries {
  observe(value: number): void;
}

interface Series<L extends string> extends HistogramSeries {
  readonly labels: Record<L, string>;
  /** Observations per bucket (not cumulative); the last slot is +Inf. */
  readonly counts: number[];
  sum: number;
  count: number;
}

/** What prom-client's registry reads from a metric to write the text format. */
interface MetricValue {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

/**
 * A histogram on the request path. prom-client's own validates and hashes the label object on
 * every observation (a few microseconds each); here each series is bound to its labels once and
 * the registry reads the counts only when scraped. The output is the standard histogram family
 * (`_bucket{le}`, `_sum`, `_count`), and optionally the `_count`s again as a counter of their own
 * (`countName`), e.g. `http_requests_total` beside `http_request_duration_seconds`.
 */
export class SeriesHistogram<L extends string> {
  readonly type = "histogram";
  readonly aggregator = "sum";
  private readonly all = new Map<string, Series<L>>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly buckets: readonly number[],
    registry: Registry,
    count?: { name: string; help: string },
  ) {
    registry.registerMetric(this as never);
    if (count) {
      const counter = { name: count.name, help: count.help, type: "counter", aggregator: "sum", get: () => this.counts(count.name, count.help), reset: () => undefined };
      registry.registerMetric(counter as never);
    }
  }

  /** The series for these label values (made on first use); keep it to observe without a lookup. */
  series(labels: Record<L, string>): HistogramSeries {
    const key = JSON.stringify(labels);
    let found = this.all.get(key);
    if (!found) {
      const buckets = this.buckets;
      const made: Series<L> = {
        labels,
        counts: new Array<number>(buckets.length + 1).fill(0),
        sum: 0,
        count: 0,
        observe(value: number) {
          let slot = 0;
          while (slot < buckets.length && value > buckets[slot]) slot++;
          made.counts[slot]++;
          made.sum += value;
          made.count++;
        },
      };
      this.all.set(key, made);
      found = made;
    }
    return found;
  }

  get() {
    const values: MetricValue[] = [];
    for (const series of this.all.values()) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += series.counts[i];
        values.push({ metricName: `${this.name}_bucket`, labels: { ...series.labels, le }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { ...series.labels, le: "+Inf" }, value: series.count });
      values.push({ metricName: `${this.name}_sum`, labels: series.labels, value: series.sum });
      values.push({ metricName: `${this.name}_count`, labels: series.labels, value: series.count });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  private counts(name: string, help: string) {
    const values: MetricValue[] = [...this.all.values()].map((series) => ({ labels: series.labels, value: series.count }));
    return { name, help, type: "counter", values, aggregator: "sum" };
  }

  reset(): void {
    this.all.clear();
  }
}
