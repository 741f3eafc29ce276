import type { ComponentChildren } from 'preact';
import { PET_STATUSES } from '../../../src/pets/pet-status.js';
import { type ActivityDay, api, type Inventory, ok } from '../api';
import { AdminsOnly, ErrorAlert, PageHeading, useLoad } from '../ui';

/** The days the activity charts cover, today included. */
const DAYS = 30;

/** A count series of the activity answer, with its legend and colour. */
interface Series {
  key: Exclude<keyof ActivityDay, 'date' | 'adoptionMedianHoursToComplete'>;
  label: string;
  /** Its CSS class: the fill colour. */
  fill: string;
}

/** A value per day shown beside a chart's counts, in its table, but not drawn. */
interface Measure {
  key: 'adoptionMedianHoursToComplete';
  label: string;
  /** The latest day's value, said under the chart. */
  latest: (value: number, date: string) => string;
}

interface ActivityChart {
  id: string;
  title: string;
  series: Series[];
  measure?: Measure;
}

const ACTIVITY_CHARTS: ActivityChart[] = [
  {
    id: 'pets',
    title: 'Pets created and sold per day',
    series: [
      { key: 'petsCreated', label: 'Created', fill: 'fill-blue' },
      { key: 'petsSold', label: 'Sold', fill: 'fill-brown' },
    ],
  },
  {
    id: 'logins',
    title: 'Logins per day',
    series: [
      { key: 'logins', label: 'Logins', fill: 'fill-blue' },
      { key: 'failedLogins', label: 'Failed logins', fill: 'fill-red' },
    ],
  },
  {
    id: 'deliveries',
    title: 'Webhook deliveries per day',
    series: [
      { key: 'deliveriesSucceeded', label: 'Succeeded', fill: 'fill-green' },
      { key: 'deliveriesFailed', label: 'Failed', fill: 'fill-red' },
    ],
  },
  {
    id: 'adoptions',
    title: 'Adoptions per day',
    series: [
      { key: 'adoptionsRequested', label: 'Requested', fill: 'fill-blue' },
      { key: 'adoptionsCompleted', label: 'Completed', fill: 'fill-green' },
      { key: 'adoptionsExpired', label: 'Expired', fill: 'fill-red' },
    ],
    measure: {
      key: 'adoptionMedianHoursToComplete',
      label: 'Median hours',
      latest: (hours, date) =>
        `Median time from request to completion: ${hours} hours (adoptions completed on ${date}).`,
    },
  },
];

const STATUS_FILLS: Record<(typeof PET_STATUSES)[number], string> = {
  available: 'fill-green',
  pending: 'fill-brown',
  sold: 'fill-grey',
};

/** The top of a chart's scale: 1, 2 or 5 times a power of ten, at least `max`. */
function scaleTop(max: number): number {
  if (max <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  return [1, 2, 5, 10].map((step) => step * power).find((top) => top >= max)!;
}

/** A coloured square for a legend; the legend's text says what it stands for. */
function Swatch({ fill }: { fill: string }) {
  return (
    <svg class="swatch" viewBox="0 0 1 1" aria-hidden="true">
      <rect class={fill} width="1" height="1" />
    </svg>
  );
}

function Legend({ items }: { items: { label: string; fill: string }[] }) {
  return (
    <ul class="legend">
      {items.map(({ label, fill }) => (
        <li key={label}>
          <Swatch fill={fill} />
          {label}
        </li>
      ))}
    </ul>
  );
}

/** The numbers behind a chart, as a table: shown on demand, read by screen readers alike. */
function ChartData({ children }: { children: ComponentChildren }) {
  return (
    <details class="chart-data">
      <summary>
        Show the numbers<span class="visually-hidden"> of this chart</span>
      </summary>
      {children}
    </details>
  );
}

/** Pets by status per category: one stacked bar each, on one scale. */
function InventoryChart({ inventory }: { inventory: Inventory }) {
  const rows = inventory.byCategory.map((category) => ({
    ...category,
    total: category.available + category.pending + category.sold,
  }));
  const top = Math.max(1, ...rows.map((row) => row.total));
  return (
    <section class="chart" aria-labelledby="inventory-chart-title">
      <h2 id="inventory-chart-title">Pets by status per category</h2>
      <Legend
        items={PET_STATUSES.map((status) => ({ label: status, fill: STATUS_FILLS[status] }))}
      />
      {rows.length === 0 ? (
        <p>No categories yet.</p>
      ) : (
        <div
          class="hbars"
          role="img"
          aria-label="Stacked bars of the pets in each category by status; the numbers are in the table below."
        >
          {rows.map((row) => {
            let x = 0;
            return (
              <div class="hbar" key={row.id}>
                <span class="hbar-label">{row.name}</span>
                <svg class="hbar-plot" viewBox={`0 0 ${top} 1`} preserveAspectRatio="none">
                  {PET_STATUSES.map((status) => {
                    const width = row[status];
                    x += width;
                    return (
                      width > 0 && (
                        <rect
                          key={status}
                          class={STATUS_FILLS[status]}
                          x={x - width}
                          y="0"
                          width={width}
                          height="1"
                        />
                      )
                    );
                  })}
                </svg>
                <span class="hbar-total">{row.total}</span>
              </div>
            );
          })}
        </div>
      )}
      <ChartData>
        <table>
          <caption class="visually-hidden">Pets by status per category</caption>
          <thead>
            <tr>
              <th scope="col">Category</th>
              {PET_STATUSES.map((status) => (
                <th scope="col" class="number" key={status}>
                  {status}
                </th>
              ))}
              <th scope="col" class="number">
                total
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id}>
                <th scope="row">{row.name}</th>
                {PET_STATUSES.map((status) => (
                  <td class="number" key={status}>
                    {row[status]}
                  </td>
                ))}
                <td class="number">{row.total}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">All categories</th>
              {PET_STATUSES.map((status) => (
                <td class="number" key={status}>
                  {inventory[status]}
                </td>
              ))}
              <td class="number">{inventory.available + inventory.pending + inventory.sold}</td>
            </tr>
          </tfoot>
        </table>
      </ChartData>
    </section>
  );
}

/**
 * Daily series side by side, a group of bars per day, oldest on the left; a measure, if any,
 * in the table and its latest value under the chart.
 */
function DailyChart({
  id,
  title,
  series,
  measure,
  days,
}: ActivityChart & {
  days: ActivityDay[];
}) {
  const top = scaleTop(Math.max(...days.flatMap((day) => series.map(({ key }) => day[key]))));
  const totals = series.map(({ key, label }) => {
    const total = days.reduce((sum, day) => sum + day[key], 0);
    return `${total} ${label.toLowerCase()}`;
  });
  const latest = measure && days.findLast((day) => day[measure.key] !== undefined);
  // Each day is one unit per bar and a gap of one unit wide; the height is 100 units.
  const width = series.length + 1;
  return (
    <section class="chart" aria-labelledby={`${id}-chart-title`}>
      <h2 id={`${id}-chart-title`}>{title}</h2>
      <Legend items={series} />
      <div class="vbars">
        <div class="vbars-scale" aria-hidden="true">
          <span>{top}</span>
          <span>0</span>
        </div>
        <svg
          class="vbars-plot"
          viewBox={`0 0 ${days.length * width} 100`}
          preserveAspectRatio="none"
          role="img"
          aria-label={`${title}, last ${days.length} days: ${totals.join(', ')}. The numbers per day are in the table below.`}
        >
          <line class="gridline" x1="0" x2={days.length * width} y1="0" y2="0" />
          <line class="gridline" x1="0" x2={days.length * width} y1="50" y2="50" />
          <line class="axis" x1="0" x2={days.length * width} y1="100" y2="100" />
          {days.map((day, i) =>
            series.map(({ key, fill }, j) => {
              const height = (day[key] / top) * 100;
              return (
                height > 0 && (
                  <rect
                    key={`${day.date}-${key}`}
                    class={fill}
                    x={i * width + 0.5 + j}
                    y={100 - height}
                    width="1"
                    height={height}
                  />
                )
              );
            }),
          )}
        </svg>
        <div class="vbars-dates" aria-hidden="true">
          <span>{days[0].date}</span>
          <span>{days[days.length - 1].date}</span>
        </div>
      </div>
      {measure && (
        <p>
          {latest
            ? measure.latest(latest[measure.key]!, latest.date)
            : `${measure.label}: no completions in these days.`}
        </p>
      )}
      <ChartData>
        <table>
          <caption class="visually-hidden">{title}</caption>
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              {series.map(({ key, label }) => (
                <th scope="col" class="number" key={key}>
                  {label}
                </th>
              ))}
              {measure && (
                <th scope="col" class="number">
                  {measure.label}
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {days.map((day) => (
              <tr key={day.date}>
                <th scope="row">{day.date}</th>
                {series.map(({ key }) => (
                  <td class="number" key={key}>
                    {day[key]}
                  </td>
                ))}
                {measure && <td class="number">{day[measure.key] ?? '–'}</td>}
              </tr>
            ))}
          </tbody>
        </table>
      </ChartData>
    </section>
  );
}

function Dashboard() {
  const inventory = useLoad(() => ok(api.GET('/v1/pets/inventory')), []);
  const activity = useLoad(
    () => ok(api.GET('/v1/stats/activity', { params: { query: { days: DAYS } } })),
    [],
  );
  return (
    <>
      <PageHeading>Dashboard</PageHeading>
      {(inventory.loading || activity.loading) && <p role="status">Loading…</p>}
      <ErrorAlert error={inventory.error ?? activity.error} />
      <div class="charts">
        {inventory.data && <InventoryChart inventory={inventory.data} />}
        {activity.data &&
          ACTIVITY_CHARTS.map((chart) => (
            <DailyChart key={chart.id} {...chart} days={activity.data!.days} />
          ))}
      </div>
    </>
  );
}

/** The admins' overview: the inventory and the last days' activity, as charts and tables. */
export function DashboardPage() {
  return (
    <AdminsOnly title="Dashboard" task="see the dashboard">
      {() => <Dashboard />}
    </AdminsOnly>
  );
}
