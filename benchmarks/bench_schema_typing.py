"""Schema typing: how many of the components' declared settings hydra-zen's
builds(populate_full_signature=True) types as Any, against ham.conf.schema.config_type (the reason
ham generates its structured configs itself). Needs the dev extra hydra-zen. Prints counts from one run."""
import dataclasses, typing
from hydra_zen import builds
from ham.conf.schema import COMPONENTS, load, config_type
from ham.settings import settings_of
total = zen_any = ours_any = 0
examples = []
for group, paths in COMPONENTS.items():
    for p in paths:
        cls = load(p)
        if dataclasses.is_dataclass(cls) and group in ("dataset", "cost", "metrics", "topo"):
            continue
        try:
            Z = builds(cls, populate_full_signature=True)
        except Exception as e:
            print("builds failed", p, e); continue
        zf = {f.name: f.type for f in dataclasses.fields(Z)}
        for s in settings_of(cls).values():
            total += 1
            zt = zf.get(s.name, "MISSING")
            ours = config_type(s.type)
            if zt is typing.Any or zt == "MISSING":
                zen_any += 1
                if ours is not typing.Any:
                    examples.append((p.rpartition('.')[2], s.name, ours))
            if ours is typing.Any: ours_any += 1
print("settings", total, "hydra-zen Any", zen_any, "ours Any", ours_any)
print("Any under zen but typed by ours:", len(examples)); print(examples[:8])
