/** A fieldset of checkboxes over a list of names, e.g. tools or member emails; `fixed` ones are shown checked and disabled. */
export function Checklist(props: {
  legend: string;
  prefix: string;
  items: string[];
  checked: string[];
  fixed?: string[];
  onChange: (checked: string[]) => void;
}) {
  const { legend, prefix, items, checked, fixed = [], onChange } = props;
  return (
    <fieldset class="checklist">
      <legend>{legend}</legend>
      <div class="choices">
        {items.map((item) => (
          <label key={item} class="check">
            <input
              type="checkbox"
              aria-label={`${prefix} ${item}`}
              checked={fixed.includes(item) || checked.includes(item)}
              disabled={fixed.includes(item)}
              onChange={(e) =>
                onChange(e.currentTarget.checked ? [...checked, item] : checked.filter((c) => c !== item))
              }
            />
            {item}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
