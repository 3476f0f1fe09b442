// What the last pick or hold attempt said, placed below the map so that a notice never
// moves the seats under the pointer (one above it pushed the map 63 px down, and the next
// click landed two rows off). "Row F, seat 7 added." is for screen readers only: the map and the
// selection already show it. A refusal is shown, and stays at the bottom of the screen
// while the map is in view.
export function ChoiceNotices({ info, error }: { info: string; error: string }) {
  return (
    <div class="choice-notices">
      <p class="visually-hidden" role="status">{info}</p>
      <p class="error" role="alert">{error}</p>
    </div>
  );
}
